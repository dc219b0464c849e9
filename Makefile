# Thin wrapper over CMake. `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
DEMO_TRACE ?= traces/philly-6214e9.csv
DEMO_CLUSTER ?= 32x8:V100
DEMO_POLICIES ?= fifo,priority,sjf,easy-backfill,conservative-backfill,preemptive,las

.PHONY: all deps configure build test gate asan bench demo format format-check clean

all: build

deps:
	@bash scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# Replays the bundled traces (tests/baselines/cases) and fails on a metric regression.
gate: build
	@bash scripts/gate-baselines $(BUILD_DIR)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer.
asan: deps
	@cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCHEDLAB_SANITIZE=ON -DSCHEDLAB_BENCH=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)
	@cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)

bench: build
	@$(BUILD_DIR)/bench/schedlab_bench --schedlab $(BUILD_DIR)/schedlab

demo: build
	@$(BUILD_DIR)/schedlab compare --trace $(DEMO_TRACE) --cluster $(DEMO_CLUSTER) --policies $(DEMO_POLICIES)

format:
	@clang-format -i $$(git ls-files '*.cpp' '*.hpp')

format-check:
	@clang-format --dry-run --Werror $$(git ls-files '*.cpp' '*.hpp')

clean:
	@rm -rf $(BUILD_DIR) $(ASAN_DIR)
