// The run option table: sweep specs accept exactly its spec keys, and an option's rule and
// wording are the same for a command-line flag and a spec key.
#include <catch2/catch.hpp>

#include <string>

#include "schedlab/error.hpp"
#include "schedlab/run_option_table.hpp"
#include "schedlab/sweep.hpp"

using namespace schedlab;

namespace {

nlohmann::ordered_json spec_with_options(nlohmann::ordered_json options) {
  return {{"policies", {"fifo"}},
          {"traces", {"t.csv"}},
          {"clusters", {"2x8:V100"}},
          {"options", std::move(options)}};
}

}  // namespace

TEST_CASE("sweep specs name their options by the table's keys", "[workflows][sweep]") {
  for (const auto& option : run_option_table()) {
    INFO(option.key);
    CHECK(find_run_option(option.key) == &option);
    if (option.in_spec) CHECK(option.flag.starts_with("--"));
  }
  CHECK(find_run_option("seed") != nullptr);
  CHECK_FALSE(find_run_option("seed")->in_spec);  // the seeds axis instead
  CHECK_THROWS_WITH(parse_sweep_spec(spec_with_options({{"seed", 3}}), "s.json"),
                    Catch::StartsWith("s.json: options.seed: unknown key (known: boot_time_s, "));
  const SweepSpec spec = parse_sweep_spec(
      spec_with_options({{"pue", 1.5}, {"checkpoint_interval_s", 60}, {"speed_model", "gpu"}}),
      "s.json");
  CHECK(spec.options.pue == 1.5);
  CHECK(spec.options.checkpoint_interval_ms == 60'000);
  const auto echo = sweep_spec_json(spec)["options"];
  CHECK(echo["pue"] == 1.5);
  CHECK(echo["speed_model"] == "gpu");
  CHECK_FALSE(echo.contains("node_power"));  // left at its default
}

TEST_CASE("the PUE range is one rule for flags and specs", "[workflows][sweep]") {
  const RunOptionInfo& pue = *find_run_option("pue");
  RunOptions options;
  CHECK_THROWS_WITH(pue.set(options, 12.0), "expected a number in 1..10");
  CHECK_THROWS_WITH(pue.set(options, 0.5), "expected a number in 1..10");
  pue.set(options, 10.0);
  CHECK(options.pue == 10.0);
  CHECK_THROWS_WITH(parse_sweep_spec(spec_with_options({{"pue", 12}}), "s.json"),
                    "s.json: options.pue: expected a number in 1..10, got 12");
  CHECK_THROWS_WITH(parse_sweep_spec(spec_with_options({{"pue", "high"}}), "s.json"),
                    "s.json: options.pue: expected a number in 1..10, got \"high\"");
}
