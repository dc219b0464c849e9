#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/regression_check.hpp"
#include "schedlab/sweep.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

Json base_summary() {
  return Json::parse(R"({
    "policy": "fifo", "trace": "t.csv", "cluster": {"nodes": 2, "gpus": 16},
    "jobs": {"submitted": 40, "completed": 40, "rejected": 0},
    "makespan_s": 1000.0,
    "wait_s": {"mean": 100.0, "p95": 400.0},
    "utilization": 0.5,
    "gpu_hours": {"idle": 10.0, "lost": 0.0},
    "restarts": {"total": 0},
    "engine": {"events": 80, "instants": 70, "wall_s": 0.2},
    "options": {"placement": "pack", "seed": 1}
  })");
}

const MetricComparison& row_of(const CheckReport& report, const std::string& metric) {
  for (const auto& row : report.rows)
    if (row.metric == metric) return row;
  FAIL("no row for " << metric);
  return report.rows.front();
}

CheckReport compare(const Json& base, const Json& cur,
                    const std::vector<std::string>& tolerances = {}) {
  return compare_results(summary_check_input("base.json", base),
                         summary_check_input("cur.json", cur), parse_tolerances(tolerances));
}

std::string tolerance_error(const std::string& item) {
  try {
    parse_tolerances({item});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("metric directions: lower wait, higher utilization, wall time never gated",
          "[workflows][check]") {
  CHECK(metric_direction("wait_s.mean") == MetricDirection::kLowerIsBetter);
  CHECK(metric_direction("jct_s.p99") == MetricDirection::kLowerIsBetter);
  CHECK(metric_direction("bounded_slowdown.max") == MetricDirection::kLowerIsBetter);
  CHECK(metric_direction("utilization") == MetricDirection::kHigherIsBetter);
  CHECK(metric_direction("jobs.completed") == MetricDirection::kHigherIsBetter);
  CHECK(metric_direction("energy_kwh.gpu_idle") == MetricDirection::kLowerIsBetter);
  CHECK(metric_direction("restarts.failures") ==
        MetricDirection::kLowerIsBetter);  // future sub-keys too
  CHECK(metric_direction("engine.wall_s") == MetricDirection::kNeverGated);
  CHECK(metric_direction("engine.events") == MetricDirection::kNeutral);
  CHECK(metric_direction("cluster.gpus") == MetricDirection::kNeutral);
  CHECK(metric_direction("gpu_hours.down") == MetricDirection::kNeutral);
  CHECK(metric_direction("gpu_hours.off") == MetricDirection::kNeutral);
  CHECK(metric_direction("emissions_kg") == MetricDirection::kLowerIsBetter);
  CHECK(metric_direction("trace.skipped.filtered out: limit") == MetricDirection::kNeutral);
  CHECK(metric_direction("jobs.rejected_reasons.needs more GPUs than the cluster has") ==
        MetricDirection::kLowerIsBetter);
  CHECK(metric_direction("wait_sx") ==
        MetricDirection::kUnknown);  // a prefix is a whole path segment
  CHECK(metric_direction("fairness.jain") == MetricDirection::kUnknown);
}

TEST_CASE("check marks regressions by direction and tolerance", "[workflows][check]") {
  Json cur = base_summary();
  cur["wait_s"]["mean"] = 110.0;      // +10%: worse
  cur["wait_s"]["p95"] = 380.0;       // better
  cur["utilization"] = 0.55;          // better
  cur["engine"]["wall_s"] = 20.0;     // 100x slower wall time: reported only
  cur["engine"]["events"] = 90;       // neutral
  cur["restarts"]["total"] = 2;       // from 0: +inf%
  cur["gpu_hours"].erase("lost");     // a directional metric disappeared
  cur["fairness"] = {{"jain", 0.9}};  // new metric
  const CheckReport strict = compare(base_summary(), cur);
  CHECK(row_of(strict, "wait_s.mean").verdict == Verdict::kRegression);
  CHECK(row_of(strict, "wait_s.mean").change_pct == Approx(10.0));
  CHECK(row_of(strict, "wait_s.p95").verdict == Verdict::kBetter);
  CHECK(row_of(strict, "utilization").verdict == Verdict::kBetter);
  CHECK(row_of(strict, "engine.wall_s").verdict == Verdict::kChanged);
  CHECK_FALSE(row_of(strict, "engine.wall_s").regression);
  CHECK(row_of(strict, "engine.events").verdict == Verdict::kChanged);
  CHECK(row_of(strict, "restarts.total").verdict == Verdict::kRegression);
  CHECK(std::isinf(row_of(strict, "restarts.total").change_pct));
  CHECK(row_of(strict, "gpu_hours.lost").verdict == Verdict::kMissing);
  CHECK(row_of(strict, "gpu_hours.lost").regression);
  CHECK(row_of(strict, "fairness.jain").verdict == Verdict::kNew);
  CHECK(row_of(strict, "makespan_s").verdict == Verdict::kUnchanged);
  CHECK(strict.regressions == 3);

  // Tolerances: the most specific pattern wins; "*" covers directional metrics only.
  const CheckReport tolerant = compare(base_summary(), cur, {"wait_s=15%", "*=1", "engine=5"});
  CHECK(row_of(tolerant, "wait_s.mean").verdict == Verdict::kWorseWithinTolerance);
  CHECK(*row_of(tolerant, "wait_s.mean").tolerance_pct == 15.0);
  CHECK(*row_of(tolerant, "makespan_s").tolerance_pct == 1.0);
  CHECK(row_of(tolerant, "engine.events").verdict ==
        Verdict::kRegression);  // +12.5% > 5%, either way
  CHECK_FALSE(row_of(tolerant, "engine.wall_s").tolerance_pct.has_value());
  CHECK(row_of(tolerant, "restarts.total").verdict == Verdict::kRegression);
  CHECK(row_of(compare(base_summary(), cur, {"wait_s.mean=10"}), "wait_s.mean").verdict ==
        Verdict::kWorseWithinTolerance);  // exactly at the tolerance is not beyond it

  // An unknown metric gets a verdict only with a tolerance.
  Json unknown_base = base_summary();
  unknown_base["fairness"] = {{"jain", 0.8}};
  CHECK(row_of(compare(unknown_base, cur), "fairness.jain").verdict == Verdict::kChanged);
  CHECK(row_of(compare(unknown_base, cur, {"fairness=5"}), "fairness.jain").verdict ==
        Verdict::kRegression);

  // Setup differences are noted, not gated.
  Json other = base_summary();
  other["policy"] = "sjf";
  const CheckReport setup = compare(base_summary(), other);
  CHECK(setup.regressions == 0);
  REQUIRE(setup.notes.size() == 1);
  CHECK(setup.notes[0] == "setup differs: policy is \"fifo\" in the baseline, \"sjf\" now");
  const std::string table =
      format_check_report(strict, summary_check_input("base.json", base_summary()),
                          summary_check_input("cur.json", cur), false);
  CHECK_THAT(table, Catch::Contains("REGRESSION (lower is better)"));
  CHECK_THAT(table, Catch::Contains("+10 (+10.00%)"));
  CHECK_THAT(table,
             Catch::EndsWith(
                 "3 regressions, 2 better, 0 worse within tolerance, 2 changed without a verdict, "
                 "1 new, 1 missing, 9 unchanged\n"));
}

TEST_CASE("tolerances are parsed strictly", "[workflows][check]") {
  const auto parsed = parse_tolerances({"wait_s.p95=5%", "*=0.5"});
  CHECK(parsed[0].pattern == "wait_s.p95");
  CHECK(parsed[0].percent == 5.0);
  CHECK(parsed[1].percent == 0.5);
  CHECK(tolerance_error("wait_s") ==
        "--tolerance wait_s: expected METRIC=PERCENT (e.g. wait_s.p95=5%)");
  CHECK(tolerance_error("wait_s=-1") ==
        "--tolerance wait_s=-1: expected a percentage >= 0 after '='");
  CHECK(tolerance_error("engine.wall_s=50") ==
        "--tolerance engine.wall_s=50: engine.wall_s is a wall-clock timing and is never gated");
  // A tolerance must name a metric of the inputs.
  CHECK_THROWS_WITH(compare(base_summary(), base_summary(), {"wiat_s=5"}),
                    "--tolerance wiat_s=5%: no metric 'wiat_s' in base.json");
}

TEST_CASE("schedlab check exits 0, 1 or 2 and names the bad file", "[workflows][check]") {
  const std::string dir = fresh_temp_dir("check");
  write(dir + "/base.json", base_summary().dump(2));
  Json worse = base_summary();
  worse["wait_s"]["p95"] = 500.0;
  write(dir + "/worse.json", worse.dump(2));
  write(dir + "/broken.json", "{\"policy\": ");
  write(dir + "/huge.json", "{\"policy\": \"fifo\", \"utilization\": 1e999}");
  write(dir + "/array.json", "[1, 2]");
  const std::string check =
      schedlab_binary() + " check --baseline " + shell_quote(dir + "/base.json");
  const auto same = run_command(check + " --current " + shell_quote(dir + "/base.json"));
  CHECK(same.exit_code == 0);
  CHECK_THAT(same.out, Catch::EndsWith("check: all 16 metrics unchanged\n"));
  const auto regressed = run_command(check + " --current " + shell_quote(dir + "/worse.json"));
  CHECK(regressed.exit_code == 1);
  CHECK_THAT(regressed.out, Catch::Contains("wait_s.p95"));
  CHECK_THAT(regressed.out, Catch::Contains("+100 (+25.00%)"));
  CHECK_THAT(regressed.out, Catch::Contains("REGRESSION"));
  const auto tolerated = run_command(check + " --current " + shell_quote(dir + "/worse.json") +
                                     " --tolerance wait_s.p95=30%");
  CHECK(tolerated.exit_code == 0);
  CHECK(count_of(same.out, "unchanged") == 17);  // a summary lists all 16 rows, + the closing line
  for (const auto& [file, message] : std::vector<std::pair<std::string, std::string>>{
           {"/broken.json", ": not valid JSON (error at byte 12)"},
           {"/huge.json", ": not valid JSON: number overflow parsing '1e999'"},
           {"/array.json", ": expected a summary JSON object, got array"},
           {"/missing.json", ": no such file or directory"}}) {
    const auto bad = run_command(check + " --current " + shell_quote(dir + file));
    INFO(bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err == dir + file + message + "\n");
    CHECK(bad.out.empty());
  }
  const auto bad_tolerance = run_command(check + " --current " + shell_quote(dir + "/base.json") +
                                         " --tolerance engine.wall_s=1");
  CHECK(bad_tolerance.exit_code == 2);
  fs::remove_all(dir);
}

TEST_CASE("schedlab check compares sweep results cell by cell", "[workflows][check]") {
  const std::string dir = fresh_temp_dir("check-sweep");
  const std::string trace_path = write_small_trace(dir);
  SweepRunOptions options;
  options.out_dir = dir + "/sweep";
  run_sweep(parse_sweep_spec(small_sweep_spec(trace_path), "spec.json"), options);
  const std::string results = options.out_dir + "/results.jsonl";
  auto rows = read_sweep_results(results);
  // Current: cell 2's mean wait 1% worse, cell 7 gone.
  rows[2]["summary"]["wait_s"]["mean"] = rows[2]["summary"]["wait_s"]["mean"].get<double>() * 1.01;
  rows.pop_back();
  std::string text;
  for (const auto& row : rows) text += row.dump() + "\n";
  write(dir + "/current.jsonl", text);
  const CheckReport report =
      compare_results(load_check_input(options.out_dir), load_check_input(dir + "/current.jsonl"),
                      std::vector<Tolerance>{});
  CHECK(report.regressions == 2);
  const std::string key2 = cell_key(rows[2]);
  bool wait_flagged = false, cell_missing = false;
  for (const auto& row : report.rows) {
    if (row.cell == key2 && row.metric == "wait_s.mean" && row.verdict == Verdict::kRegression)
      wait_flagged = true;
    if (row.metric == "(cell)" && row.verdict == Verdict::kMissing) cell_missing = true;
  }
  CHECK(wait_flagged);
  CHECK(cell_missing);
  CHECK(compare_results(load_check_input(options.out_dir), load_check_input(dir + "/current.jsonl"),
                        parse_tolerances({"wait_s=2"}))
            .regressions == 1);
  // A sweep against a summary is bad input.
  const auto mixed =
      run_command(schedlab_binary() + " check --baseline " + shell_quote(results) + " --current " +
                  shell_quote(options.out_dir + "/cells/0000/summary.json"));
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.err, Catch::Contains("is a summary but the baseline"));
  const auto cli =
      run_command(schedlab_binary() + " check --baseline " + shell_quote(options.out_dir) +
                  " --current " + shell_quote(dir + "/current.jsonl"));
  CHECK(cli.exit_code == 1);
  CHECK_THAT(cli.out, Catch::Contains("cell " + key2));
  fs::remove_all(dir);
}

TEST_CASE("check refuses summaries set up differently and names each difference",
          "[workflows][check]") {
  Json base = base_summary();
  base["policy_params"] = {{"aging", "0"}};
  base["trace"] = {{"path", "a.csv"}, {"fingerprint", "00000000000000aa"}};
  base["cluster"]["gpu_types"] = {{"V100", 16}};
  CheckOptions strict;
  CHECK(compare_results(summary_check_input("base.json", base),
                        summary_check_input("cur.json", base), strict)
            .notes.empty());

  // Another path to the same jobs is the same setup.
  Json moved = base;
  moved["trace"]["path"] = "elsewhere/a.csv";
  CHECK(setup_differences(base, moved).empty());

  Json other = base;
  other["policy"] = "sjf";
  other["policy_params"]["aging"] = "2h";
  other["trace"]["fingerprint"] = "00000000000000bb";
  other["cluster"]["gpu_types"] = {{"A100", 16}};
  other["options"]["seed"] = 2;
  other["options"]["carbon"] = "c.csv";  // an option set on one side only
  CHECK(setup_differences(base, other) ==
        std::vector<std::string>{
            "policy is \"fifo\" in the baseline, \"sjf\" now",
            "policy_params.aging is \"0\" in the baseline, \"2h\" now",
            "trace.fingerprint is \"00000000000000aa\" in the baseline, \"00000000000000bb\" now",
            "cluster.gpu_types.A100 is not set in the baseline, 16 now",
            "cluster.gpu_types.V100 is 16 in the baseline, not set now",
            "options.carbon is not set in the baseline, \"c.csv\" now",
            "options.seed is 1 in the baseline, 2 now"});
  CHECK_THROWS_WITH(compare_results(summary_check_input("base.json", base),
                                    summary_check_input("cur.json", other), strict),
                    Catch::StartsWith("cur.json: set up differently from the baseline base.json: "
                                      "policy is \"fifo\" in the baseline, \"sjf\" now; ") &&
                        Catch::EndsWith("(--allow-setup-change compares anyway)"));
  CheckOptions allowed;
  allowed.allow_setup_change = true;
  const CheckReport noted = compare_results(summary_check_input("base.json", base),
                                            summary_check_input("cur.json", other), allowed);
  CHECK(noted.notes.size() == 7);
  CHECK(noted.notes[0] == "setup differs: policy is \"fifo\" in the baseline, \"sjf\" now");

  // A summary of an older schedlab records no parameters or fingerprint: those are not
  // compared, and a note says so.
  const CheckReport older = compare_results(summary_check_input("old.json", base_summary()),
                                            summary_check_input("cur.json", base), strict);
  CHECK(older.regressions == 0);
  CHECK(std::find(older.notes.begin(), older.notes.end(),
                  "setup: policy_params is not recorded in the baseline (not compared)") !=
        older.notes.end());
}

TEST_CASE("check's default tolerance hides no change the report can show", "[workflows][check]") {
  Json cur = base_summary();
  cur["wait_s"]["mean"] = 100.004;  // +0.004%: printed as +0.00%
  cur["wait_s"]["p95"] = 400.04;    // +0.01%
  const CheckReport report = compare(base_summary(), cur);
  CHECK(row_of(report, "wait_s.mean").verdict == Verdict::kWorseWithinTolerance);
  CHECK(*row_of(report, "wait_s.mean").tolerance_pct == kDefaultTolerancePct);
  CHECK(row_of(report, "wait_s.p95").verdict == Verdict::kRegression);
  CHECK(report.regressions == 1);
  const std::string table = format_check_report(report, summary_check_input("b", base_summary()),
                                                summary_check_input("c", cur), true);
  CHECK_THAT(table, Catch::Contains("(+0.01%)"));
  CHECK_THAT(table, Catch::Contains("0.005%"));
}

TEST_CASE("check gates chosen metrics only", "[workflows][check]") {
  Json cur = base_summary();
  cur["wait_s"]["mean"] = 150.0;
  cur["makespan_s"] = 1001.0;
  CheckOptions options;
  options.metrics = parse_metric_patterns({"utilization,wait_s.p95", "jobs"});
  CHECK(options.metrics == std::vector<std::string>{"utilization", "wait_s.p95", "jobs"});
  const CheckReport report = compare_results(summary_check_input("b", base_summary()),
                                             summary_check_input("c", cur), options);
  CHECK(report.regressions == 0);
  for (const auto& row : report.rows)
    CHECK((row.metric == "utilization" || row.metric == "wait_s.p95" ||
           row.metric.starts_with("jobs.")));
  options.metrics = {"wait_s"};
  CHECK(compare_results(summary_check_input("b", base_summary()), summary_check_input("c", cur),
                        options)
            .regressions == 1);
  options.metrics = {"wiat_s"};
  CHECK_THROWS_WITH(compare_results(summary_check_input("b", base_summary()),
                                    summary_check_input("c", cur), options),
                    "--metrics wiat_s: no metric 'wiat_s' in b");
  CHECK_THROWS_WITH(parse_metric_patterns({"wait_s,,jobs"}),
                    "--metrics wait_s,,jobs: expected METRIC[,METRIC...]");
}

TEST_CASE(
    "schedlab check on real runs: exit 2 for another setup, 1 for a regression, 0 within "
    "tolerance, in text, JSON, JUnit and GitHub formats",
    "[workflows][check]") {
  const std::string dir = fresh_temp_dir("check-runs");
  const std::string trace = write_small_trace(dir);
  auto run_summary = [&](const std::string& policy, const std::string& extra) {
    const std::string out = dir + "/" + policy + "-" + std::to_string(extra.size()) + "-run";
    const auto run = run_command(schedlab_binary() + " run -t " + shell_quote(trace) +
                                 " -c 2x8:V100 --reproducible -p " + policy + " " + extra + " -o " +
                                 shell_quote(out));
    REQUIRE(run.exit_code == 0);
    return out + "/summary.json";
  };
  const std::string fifo = run_summary("fifo", "");
  const std::string sjf = run_summary("sjf", "");
  const std::string check = schedlab_binary() + " check --baseline " + shell_quote(fifo);

  const auto same = run_command(check + " --current " + shell_quote(fifo));
  CHECK(same.exit_code == 0);
  CHECK_THAT(same.out, Catch::EndsWith("unchanged\n"));

  // Another policy: refused up front, one line naming the difference, nothing on stdout.
  const auto other = run_command(check + " --current " + shell_quote(sjf));
  CHECK(other.exit_code == 2);
  CHECK(other.out.empty());
  CHECK(count_of(other.err, "\n") == 1);
  CHECK_THAT(other.err, Catch::Contains("policy is \"fifo\" in the baseline, \"sjf\" now"));
  CHECK(run_command(check + " --current " + shell_quote(sjf) + " --allow-setup-change").exit_code !=
        2);
  // run --baseline refuses the same way, before writing any output.
  const auto gated_run = run_command(schedlab_binary() + " run -t " + shell_quote(trace) +
                                     " -c 2x8:V100 --reproducible -p sjf --baseline " +
                                     shell_quote(fifo) + " -o " + shell_quote(dir + "/refused"));
  CHECK(gated_run.exit_code == 2);
  CHECK_THAT(gated_run.err, Catch::Contains("this run: set up differently from the baseline"));
  CHECK_FALSE(fs::exists(dir + "/refused/summary.json"));
  // Another option (seed) is another setup too.
  const std::string seeded = run_summary("fifo", "--seed 7");
  CHECK_THAT(run_command(check + " --current " + shell_quote(seeded)).err,
             Catch::Contains("options.seed is 1 in the baseline, 7 now"));

  // A real regression: the same setup with a 10% longer mean wait.
  Json worse = Json::parse(read_text(fifo));
  const double wait = worse["wait_s"]["mean"].get<double>();
  REQUIRE(wait > 0);
  worse["wait_s"]["mean"] = wait * 1.1;
  write(dir + "/worse.json", worse.dump(2));
  const std::string against_worse = check + " --current " + shell_quote(dir + "/worse.json");
  CHECK(run_command(against_worse).exit_code == 1);
  CHECK(run_command(against_worse + " --tolerance wait_s.mean=11").exit_code == 0);
  CHECK(run_command(against_worse + " --metrics makespan_s,utilization").exit_code == 0);

  // JSON.
  const auto json = run_command(against_worse + " --format json");
  CHECK(json.exit_code == 1);
  const Json parsed = Json::parse(json.out);
  CHECK(parsed["regressions"] == 1);
  CHECK(parsed["passed"] == false);
  bool wait_row = false;
  for (const auto& row : parsed["rows"])
    if (row["metric"] == "wait_s.mean") wait_row = row["regression"] == true;
  CHECK(wait_row);

  // JUnit XML, read back by an XML parser.
  const auto junit = run_command(against_worse + " --format junit");
  CHECK(junit.exit_code == 1);
  boost::property_tree::ptree xml;
  std::istringstream junit_in(junit.out);
  REQUIRE_NOTHROW(boost::property_tree::read_xml(junit_in, xml));
  const auto& suites = xml.get_child("testsuites");
  CHECK(suites.get<int>("<xmlattr>.failures") == 1);
  const int tests = suites.get<int>("<xmlattr>.tests");
  CHECK(tests == static_cast<int>(parsed["rows"].size()));
  int cases = 0;
  int failures = 0;
  for (const auto& [name, suite] : suites) {
    if (name != "testsuite") continue;
    for (const auto& [case_name, test_case] : suite) {
      if (case_name != "testcase") continue;
      ++cases;
      if (test_case.get_child_optional("failure")) {
        ++failures;
        CHECK(test_case.get<std::string>("<xmlattr>.name") == "wait_s.mean");
        CHECK_THAT(test_case.get<std::string>("failure.<xmlattr>.message"),
                   Catch::Contains("(+10.00%)"));
      }
    }
  }
  CHECK(cases == tests);
  CHECK(failures == 1);

  // GitHub annotations.
  const auto github = run_command(against_worse + " --format github");
  CHECK(github.exit_code == 1);
  CHECK_THAT(github.out,
             Catch::StartsWith("::error title=schedlab check%3A regression::wait_s.mean: "));
  CHECK_THAT(github.out, Catch::EndsWith("1 regression, 0 better, 0 worse within tolerance, 0 "
                                         "changed without a verdict, 0 new, 0 missing, " +
                                         std::to_string(tests - 1) + " unchanged\n"));
  CHECK(run_command(check + " --current " + shell_quote(fifo) + " --format xml").exit_code == 2);
  fs::remove_all(dir);
}
