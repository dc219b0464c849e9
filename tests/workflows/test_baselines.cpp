// The committed regression baselines (tests/baselines/philly-6214e9_32x8-V100_<policy>.json,
// replayed and checked by CI) and `schedlab run --baseline`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <catch2/catch.hpp>

#include "schedlab/policy.hpp"
#include "schedlab/regression_check.hpp"
#include "schedlab/summary_fields.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

TEST_CASE("committed baselines are reproducible summaries of registered policies",
          "[workflows][baselines]") {
  const fs::path dir = fs::path(source_dir()) / "tests" / "baselines";
  const std::string prefix = "philly-6214e9_32x8-V100_";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().starts_with(prefix) && entry.path().extension() == ".json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE_FALSE(files.empty());
  std::set<std::string> registered;
  for (const auto& info : registered_policies()) registered.insert(info.name);
  for (const auto& file : files) {
    INFO(file.string());
    const CheckInput baseline = load_check_input(file.string());
    const auto& summary = baseline.summaries.front().second;
    const std::string policy = summary.at("policy").get<std::string>();
    CHECK(file.filename().string() == prefix + policy + ".json");
    CHECK(registered.contains(policy));
    CHECK(summary.at("trace") == "traces/philly-6214e9.csv");
    CHECK(numeric_at(summary, "jobs.submitted") == 1985.0);
    CHECK(numeric_at(summary, "cluster.gpus") == 256.0);
    CHECK(numeric_at(summary, "engine.wall_s") == 0.0);  // written with --reproducible
  }
}

TEST_CASE("schedlab run --baseline runs and gates in one step", "[workflows][baselines][check]") {
  const std::string dir = fresh_temp_dir("run-baseline");
  const std::string run = schedlab_binary() + " run --trace " +
                          shell_quote(write_small_trace(dir)) + " --cluster " + kSmallCluster +
                          " --policy fifo";
  REQUIRE(run_command(run + " --reproducible -o " + shell_quote(dir + "/base")).exit_code == 0);
  auto baseline = load_check_input(dir + "/base").summaries.front().second;
  // A much slower baseline wall time: reported, never gated.
  baseline["engine"]["wall_s"] = 1000.0;
  std::ofstream(dir + "/slow.json") << baseline.dump(2);
  const auto pass = run_command(run + " --baseline " + shell_quote(dir + "/slow.json"));
  INFO(pass.err);
  CHECK(pass.exit_code == 0);
  CHECK_THAT(pass.out, Catch::Contains("timing, never gated"));
  CHECK_THAT(pass.out, Catch::Contains(" 0 regressions"));

  // A baseline that waited less: the run regresses.
  baseline["wait_s"]["mean"] = baseline["wait_s"]["mean"].get<double>() * 0.9;
  std::ofstream(dir + "/better.json") << baseline.dump(2);
  const auto fail = run_command(run + " --json --baseline " + shell_quote(dir + "/better.json"));
  CHECK(fail.exit_code == 1);
  CHECK_THAT(fail.err, Catch::Contains("REGRESSION"));  // with --json the table goes to stderr
  CHECK(nlohmann::json::parse(fail.out)["policy"] == "fifo");
  const auto tolerated = run_command(run + " --baseline " + shell_quote(dir + "/better.json") +
                                     " --tolerance wait_s.mean=12");
  CHECK(tolerated.exit_code == 0);

  // A bad baseline is rejected before the run: exit 2, no outputs written.
  std::ofstream(dir + "/bad.json") << "{";
  const auto bad = run_command(run + " -o " + shell_quote(dir + "/out") + " --baseline " +
                               shell_quote(dir + "/bad.json"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == dir + "/bad.json: not valid JSON (error at byte 2)\n");
  CHECK_FALSE(fs::exists(dir + "/out"));
  const auto sweep_baseline = run_command(run + " --tolerance wait_s=1");
  CHECK(sweep_baseline.exit_code == 2);
  CHECK(sweep_baseline.err == "--tolerance needs --baseline\n");
  fs::remove_all(dir);
}
