#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/report.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/trace.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

// Writes a run's outputs (as `schedlab run -o` does) and returns the directory.
std::string write_run(const std::string& dir, const Trace& trace, const std::string& cluster) {
  const SimulationResult result = run_checked(trace, cluster);
  const std::string summary = result.summary.dump(2) + "\n";
  write_files_atomically(dir, {{"summary.json", summary},
                               {"jobs.csv", result.jobs_csv},
                               {"timeseries.csv", result.timeseries_csv}});
  return dir;
}

// Every chart is well formed: opened and closed, with data marks and axis labels.
void check_charts(const std::string& html, std::size_t expected) {
  CHECK(count_of(html, "<svg class=\"chart\"") == expected);
  CHECK(count_of(html, "</svg>") == expected);
  std::size_t at = 0;
  for (std::size_t i = 0; i < expected; ++i) {
    at = html.find("<svg class=\"chart\"", at);
    const std::size_t end = html.find("</svg>", at);
    const std::string svg = html.substr(at, end - at);
    INFO("chart " << i);
    CHECK(count_of(svg, "class=\"mark") > 0);
    CHECK(count_of(svg, "class=\"axis-label\"") >= 1);
    at = end;
  }
}

std::string error_of(const std::vector<std::string>& inputs, const ReportOptions& options = {}) {
  try {
    build_report(inputs, options);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("report of run outputs: every chart kind, self-contained, deterministic",
          "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report");
  const Trace trace = trace_from_csv(small_trace_csv(), "small.csv");
  const std::string small = write_run(dir + "/small", trace, kSmallCluster);
  const std::string large = write_run(dir + "/large", trace, "4x8:V100");
  const Report report = build_report({small, large + "/summary.json"});
  // 2 over time + 2 CDFs + 7 summary bars + energy + idle GPU-hours + restarts + lost work.
  CHECK(report.charts == 15);
  check_charts(report.html, 15);
  CHECK(report.notes.empty());
  const std::string& html = report.html;
  // Nothing is fetched at view time.
  for (const char* external : {"http://", "https://", "src=", "<link", "@import", "url("}) {
    INFO(external);
    CHECK(count_of(html, external) == 0);
  }
  // Axes with units and direct labels naming both runs (same policy: told apart by directory).
  for (const char* text :
       {"simulated time (h)", "busy GPUs (% of cluster)", "queued jobs (count)",
        "share of jobs (%)", "1 min", "1 h", "energy (kWh)", "idle capacity (GPU-hours)",
        "restarts (count)", "lost work (GPU-hours)", "mean wait (", "Every numeric metric"}) {
    INFO(text);
    CHECK(count_of(html, text) >= 1);
  }
  const std::string small_label = "fifo (" + fs::path(small).lexically_normal().string() + ")";
  CHECK(count_of(html, "class=\"direct-label\"") == 8);  // 2 runs x 4 line charts
  CHECK_THAT(html, Catch::Contains("<title>" + small_label + "</title>"));
  // The smaller cluster waits longer: its mean-wait bar is longer.
  CHECK_THAT(html, Catch::Contains("wait_s.mean"));
  CHECK(build_report({small, large + "/summary.json"}).html == html);
  fs::remove_all(dir);
}

TEST_CASE("report of a sweep adds metric-vs-load charts with confidence bands",
          "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report-sweep");
  const std::string trace_path = write_small_trace(dir);
  auto spec_json = small_sweep_spec(trace_path);
  spec_json["seeds"] = {1, 2, 3};
  SweepRunOptions options;
  options.out_dir = dir + "/sweep";
  options.jobs = 2;
  run_sweep(parse_sweep_spec(spec_json, "spec.json"), options);
  const Report report = build_report({options.out_dir});
  // 15 per-policy charts + 7 metrics against load (one trace, one cluster).
  CHECK(report.charts == 22);
  check_charts(report.html, 22);
  CHECK_THAT(report.html, Catch::Contains("Metrics against load"));
  CHECK_THAT(report.html, Catch::Contains("load scale (x the trace&#39;s arrival rate)"));
  CHECK_THAT(report.html, Catch::Contains("mean over 3 seeds, band: 95% CI"));
  CHECK_THAT(report.html, Catch::Contains("at load scale 1 "));
  // fifo ignores the seed: the band has zero width but is drawn for both variants.
  CHECK(count_of(report.html, "class=\"band\"") == 14);
  const Report at_two = build_report({options.out_dir + "/results.jsonl"}, ReportOptions{"t", 2.0});
  CHECK_THAT(at_two.html, Catch::Contains("at load scale 2 "));
  CHECK(error_of({options.out_dir}, ReportOptions{"t", 3.0}) ==
        "--load 3: not a load scale of " + options.out_dir + "/results.jsonl");
  fs::remove_all(dir);
}

TEST_CASE("report rejects bad input with one line naming the file", "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report-bad");
  CHECK(error_of({dir + "/nothing"}) == dir + "/nothing: no such file or directory");
  CHECK(error_of({dir}) == dir + ": directory holds neither summary.json nor results.jsonl");
  fs::create_directories(dir + "/run");
  std::ofstream(dir + "/run/summary.json") << "{\"policy\": \"fifo\", \"wait_s\": {\"mean\": 1}}";
  std::ofstream(dir + "/run/timeseries.csv") << "time_s,busy_gpus,idle_gpus,queued_jobs\n0,1,x,0\n";
  CHECK(error_of({dir + "/run"}) ==
        dir + "/run/timeseries.csv:2: column 'idle_gpus': expected a number, got 'x'");
  std::ofstream(dir + "/run/timeseries.csv") << "time_s,busy_gpus\n0,1\n";
  CHECK(error_of({dir + "/run"}) == dir + "/run/timeseries.csv:1: missing column 'idle_gpus'");
  fs::remove(dir + "/run/timeseries.csv");
  // Without timeseries.csv and jobs.csv the report still has its summary charts, with notes.
  const Report partial = build_report({dir + "/run"});
  CHECK(partial.charts == 1);  // mean wait is the only metric present
  CHECK(partial.notes.size() == 2);
  std::ofstream(dir + "/results.jsonl") << "not json\n";
  CHECK(error_of({dir + "/results.jsonl"}) ==
        dir + "/results.jsonl:1: not a JSON object (expected one results row per line)");
  CHECK_THAT(error_of({dir + "/results.jsonl", dir + "/run"}),
             Catch::Contains("sweep results must be the only input"));

  // CLI: exit 2, nothing written; exit 0 and the file on success.
  const std::string out = dir + "/r.html";
  const auto bad = run_command(schedlab_binary() + " report " + shell_quote(dir + "/nothing") +
                               " -o " + shell_quote(out));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == dir + "/nothing: no such file or directory\n");
  CHECK_FALSE(fs::exists(out));
  const auto ok = run_command(schedlab_binary() + " report " + shell_quote(dir + "/run") + " -o " +
                              shell_quote(out));
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == "report: 1 charts written to " + out + "\n");
  CHECK_THAT(read_text(out), Catch::StartsWith("<!DOCTYPE html>"));
  fs::remove_all(dir);
}
