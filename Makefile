# Thin wrapper over CMake. `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
TSAN_DIR ?= build-tsan
TIDY_DIR ?= build-tidy
DEMO_DIR ?= build-demo
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# WERROR=ON turns every compiler warning into an error (CI builds that way).
WERROR ?= OFF
CLANG_CXX ?= clang++-14
CLANG_FORMAT ?= clang-format-14
RUN_CLANG_TIDY ?= run-clang-tidy-14
# `make fuzz`: seconds per harness, and how many harnesses run at once.
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 2
# Regex of the files `make tidy` checks (absolute paths in compile_commands.json).
TIDY_FILES ?= ^$(CURDIR)/(src|policies)/
DEMO_TRACE ?= traces/philly-6214e9.csv
DEMO_CLUSTER ?= 32x8:V100
DEMO_POLICIES ?= fifo,priority,sjf,easy-backfill,conservative-backfill,preemptive,las

.PHONY: all deps deps-dev demo-deps configure build test gate asan-build asan fuzz tsan tidy bench demo leaderboard format \
        format-check clean

all: build

deps:
	@bash scripts/install-deps

# Only what the demo's build needs: compiler, CMake and the libraries of the schedlab binary.
demo-deps:
	@bash scripts/install-deps --demo

# Also the clang 14 tools that tidy, tsan and format-check use.
deps-dev:
	@bash scripts/install-deps --dev

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DSCHEDLAB_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# Replays the bundled traces (tests/baselines/cases) and fails on a metric regression.
gate: build
	@bash scripts/gate-baselines $(BUILD_DIR)

# A clang++ 14 build under AddressSanitizer + UndefinedBehaviorSanitizer (halting on the first
# report), at -O1 with line tables (-g1): enough for the sanitizers' reports, and quick to
# compile. Every object also carries libFuzzer's coverage instrumentation (SCHEDLAB_FUZZ), so the
# same build holds the fuzz harnesses of tests/fuzz: `make fuzz` needs no build of its own.
asan-build: deps-dev
	@cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O1 -g1' \
	  -DCMAKE_CXX_COMPILER=$(CLANG_CXX) -DSCHEDLAB_SANITIZE=ON -DSCHEDLAB_FUZZ=ON -DSCHEDLAB_BENCH=OFF \
	  -DSCHEDLAB_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)

# The whole suite under ASan + UBSan but ASAN_SKIP: long numeric reproductions and timing
# tests (minutes each when instrumented), whose code smaller tests and the fuzz harnesses cover
# under the sanitizers; `make test` runs them. ASAN_SKIP= runs everything.
ASAN_SKIP ?= ^(inflate: FGD leaves the fewest|inflate: on openb|inflate: the command|the committed board of the default suite|long runs show progress|sweep: progress inside a running cell)
asan: asan-build
	@cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) $(if $(ASAN_SKIP),-E '$(ASAN_SKIP)')

# Every fuzz harness (docs/fuzzing.md) for FUZZ_SECONDS, FUZZ_JOBS at a time, from its seeds;
# fails on any crash, sanitizer report, leak, hang (10 s) or memory blow-up (2 GB).
fuzz: asan-build
	@bash scripts/run-fuzz --build-dir $(ASAN_DIR) --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS)

# The library, the executable and the sweep tests built with clang++ 14 under ThreadSanitizer
# (so also a clang build of every source but the other tests); runs the sweep tests, whose
# cells run on threads. -O1 with line tables: cheap to compile, enough for the reports.
tsan: deps-dev
	@cmake -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG='-O1 -gline-tables-only' \
	  -DCMAKE_CXX_COMPILER=$(CLANG_CXX) -DSCHEDLAB_BENCH=OFF \
	  -DSCHEDLAB_TSAN=ON -DSCHEDLAB_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TSAN_DIR) -j $(JOBS) --target schedlab schedlab_sweep_tests
	@TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 $(TSAN_DIR)/tests/schedlab_sweep_tests "[sweep]"

# clang-tidy (.clang-tidy) over src/ and policies/, with the compile commands of a configure
# without precompiled headers (nothing is built there).
tidy: deps-dev
	@cmake -S . -B $(TIDY_DIR) -DCMAKE_BUILD_TYPE=Release -DSCHEDLAB_PCH=OFF -DSCHEDLAB_TESTS=OFF \
	  -DSCHEDLAB_BENCH=OFF $(CMAKE_FLAGS) >/dev/null
	@$(RUN_CLANG_TIDY) -quiet -j $(JOBS) -p $(TIDY_DIR) '$(TIDY_FILES)'

# The engine at growing sizes, then Python policies against the built-in ones (when the build
# has the Python module).
# The default suite (suites/default.json) ranked into $(BUILD_DIR)/leaderboard, and its board
# copied into docs/leaderboard.md (between the leaderboard markers); a test checks that the
# committed board still reproduces.
leaderboard: build
	@$(BUILD_DIR)/schedlab leaderboard suites/default.json -o $(BUILD_DIR)/leaderboard -j $(JOBS) -q
	@bash scripts/embed-leaderboard docs/leaderboard.md $(BUILD_DIR)/leaderboard/leaderboard.md

bench: build
	@$(BUILD_DIR)/bench/schedlab_bench --schedlab $(BUILD_DIR)/schedlab
	@python=$$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' $(BUILD_DIR)/CMakeCache.txt); \
	  if [ -d $(BUILD_DIR)/python/schedlab ] && [ -n "$$python" ]; then \
	    "$$python" bench/python_bench.py --build $(BUILD_DIR); fi

# The schedlab binary alone, in its own directory (no tests, benchmarks, Python module or MPI
# runner, nor their packages), then the comparison on a bundled real trace.
demo: demo-deps
	@cmake -S . -B $(DEMO_DIR) -DCMAKE_BUILD_TYPE=Release -DSCHEDLAB_WERROR=$(WERROR) \
	  -DSCHEDLAB_TESTS=OFF -DSCHEDLAB_BENCH=OFF -DSCHEDLAB_PYTHON=OFF -DSCHEDLAB_MPI=OFF \
	  $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(DEMO_DIR) -j $(JOBS) --target schedlab
	@$(DEMO_DIR)/schedlab compare --trace $(DEMO_TRACE) --cluster $(DEMO_CLUSTER) --policies $(DEMO_POLICIES)

format: deps-dev
	@$(CLANG_FORMAT) -i $$(git ls-files '*.cpp' '*.hpp')

format-check: deps-dev
	@$(CLANG_FORMAT) --dry-run --Werror $$(git ls-files '*.cpp' '*.hpp')

clean:
	@rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(TIDY_DIR) $(DEMO_DIR)
