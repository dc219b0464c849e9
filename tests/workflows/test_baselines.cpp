// The committed regression baselines (tests/baselines/cases and NAME_POLICY.json, replayed and
// checked by CI through scripts/gate-baselines) and `schedlab run --baseline`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

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
  // tests/baselines/cases: NAME TRACE CLUSTER POLICY[,POLICY...] [RUN OPTION...]; every
  // (case, policy) has NAME_POLICY.json and no other baseline file exists.
  const fs::path dir = fs::path(source_dir()) / "tests" / "baselines";
  std::ifstream cases(dir / "cases");
  REQUIRE(cases.good());
  std::set<std::string> registered;
  for (const auto& info : registered_policies()) registered.insert(info.name);
  std::set<std::string> expected_files;
  std::set<std::string> traces;
  for (std::string line; std::getline(cases, line);) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream words(line);
    std::string name, trace, cluster, policies;
    words >> name >> trace >> cluster >> policies;
    INFO(line);
    REQUIRE_FALSE(policies.empty());
    CHECK(fs::exists(fs::path(source_dir()) / trace));
    traces.insert(trace);
    std::istringstream policy_list(policies);
    for (std::string policy; std::getline(policy_list, policy, ',');) {
      const std::string file = name + "_" + policy + ".json";
      INFO(file);
      CHECK(registered.contains(policy));
      REQUIRE(fs::exists(dir / file));
      expected_files.insert(file);
      const CheckInput baseline = load_check_input((dir / file).string());
      const auto& summary = baseline.summaries.front().second;
      CHECK(summary.at("policy") == policy);
      CHECK(summary_trace_path(summary) == trace);
      CHECK(numeric_at(summary, "jobs.submitted") > 0.0);
      CHECK(numeric_at(summary, "engine.wall_s") == 0.0);  // written with --reproducible
    }
  }
  CHECK(expected_files.size() >= 18);
  CHECK(traces.size() >= 4);  // the bundled traces in several formats
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (entry.path().extension() == ".json") CHECK(expected_files.contains(file));
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
  // So is a tolerance naming no metric of the baseline (a typo would gate nothing).
  const auto typo = run_command(run + " -o " + shell_quote(dir + "/out") + " --baseline " +
                                shell_quote(dir + "/slow.json") + " --tolerance wait_s.p59=5%");
  CHECK(typo.exit_code == 2);
  CHECK(typo.out.empty());
  CHECK(typo.err == "--tolerance wait_s.p59=5%: no metric 'wait_s.p59' in " + dir + "/slow.json\n");
  CHECK_FALSE(fs::exists(dir + "/out"));
  fs::remove_all(dir);
}
