#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "schedlab/output.hpp"
#include "schedlab/report.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

// The busy window is internal to the report.
#include "../../src/workflows/report/report_window.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

constexpr const char* kJobsHeader =
    "job_id,requested_number_of_resources,execution_time,waiting_time,turnaround_time,"
    "final_state,bounded_slowdown,restarts,preemptions,queued_time,tenant,user\n";

// Two hand-made runs of three jobs: j1 (1 GPU, 5 min of work), j2 (8 GPUs, 2 h), j3 (2 GPUs,
// 1 h). Under sjf j1 waits half as long, j3 half again as long, j2 3% longer, and j2 was
// preempted, so only fifo's jobs.csv shows its work.
std::string write_hand_runs(const std::string& dir) {
  write_files_atomically(
      dir + "/fifo",
      {{"summary.json", R"({"policy": "fifo", "wait_s": {"mean": 433.333}})"},
       {"jobs.csv", std::string(kJobsHeader) +
                        "j1,1,300,100,400,COMPLETED_SUCCESSFULLY,1.3,0,0,100,a,u1\n"
                        "j2,8,7200,1000,8200,COMPLETED_SUCCESSFULLY,1.1,0,0,1000,b,u2\n"
                        "j3,2,3600,200,3800,COMPLETED_SUCCESSFULLY,1.05,0,0,200,a,u1\n"}});
  write_files_atomically(
      dir + "/sjf",
      {{"summary.json", R"({"policy": "sjf", "wait_s": {"mean": 460}})"},
       {"jobs.csv", std::string(kJobsHeader) +
                        "j1,1,300,50,350,COMPLETED_SUCCESSFULLY,1.2,0,0,50,a,u1\n"
                        "j2,8,9000,1030,10030,COMPLETED_SUCCESSFULLY,1.4,1,1,2830,b,u2\n"
                        "j3,2,3600,300,3900,COMPLETED_SUCCESSFULLY,1.08,0,0,300,a,u1\n"}});
  return dir;
}

// The verdict table's body cells, row by row: (css class, text).
std::vector<std::vector<std::string>> verdict_cells(const std::string& html) {
  const std::size_t begin = html.find("<table class=\"verdict\">");
  if (begin == std::string::npos) return {};
  const std::string table = html.substr(begin, html.find("</table>", begin) - begin);
  return matches(table, "<td class=\"([a-z]+)\" title=\"[^\"]*\">([^<]*)</td>");
}

}  // namespace

TEST_CASE("report verdict table: change per job class against the reference, coloured",
          "[workflows][report][classes]") {
  const std::string dir = write_hand_runs(fresh_temp_dir("report-verdict"));
  const Report report = build_report({dir + "/fifo", dir + "/sjf"});
  // The verdict opens the page: before the first chart.
  const std::size_t verdict_at = report.html.find("<section id=\"verdict\">");
  REQUIRE(verdict_at != std::string::npos);
  CHECK(verdict_at < report.html.find("<svg"));
  CHECK_THAT(report.html, Catch::Contains("against fifo</h2>"));
  // Columns: all jobs; GPUs 1, 2-4, 5-8 (9+ holds no job); work <=10m, 10m-1h (a bound belongs
  // to the class it ends), 1h-6h. j2's work comes from fifo's jobs.csv.
  CHECK_THAT(report.html,
             Catch::Contains("<th>1</th><th>2-4</th><th>5-8</th><th>&lt;=10m</th><th>10m-1h</th>"
                             "<th>1h-6h</th></tr>"));
  // all: 433.333 -> 460 (+6.2%, beyond 5%: pays); 1 GPU and <=10m: 100 -> 50 (gains);
  // 2-4 and 10m-1h: 200 -> 300 (pays); 5-8 and 1h-6h: 1000 -> 1030 (+3.0%, within 5%).
  const std::vector<std::vector<std::string>> expected = {
      {"pays", "+6.2%"},   {"gains", "-50.0%"}, {"pays", "+50.0%"}, {"same", "+3.0%"},
      {"gains", "-50.0%"}, {"pays", "+50.0%"},  {"same", "+3.0%"}};
  CHECK(verdict_cells(report.html) == expected);
  CHECK(count_of(report.html, "<tr><td>sjf</td><td class=") == 1);
  CHECK(count_of(report.html, "<tr><td>fifo</td><td class=") == 0);  // the reference has no row
  CHECK(report.notes.size() == 4);  // no timeseries.csv or attempts.csv, twice; no work note

  // Another metric and threshold: time queued counts j2's wait after its preemption.
  ReportOptions queued;
  queued.verdict.metric = "queued_s.mean";
  queued.verdict.threshold_pct = 60;
  const auto cells = verdict_cells(build_report({dir + "/fifo", dir + "/sjf"}, queued).html);
  REQUIRE(cells.size() == 7);
  CHECK(cells[0] == std::vector<std::string>{"pays", "+144.6%"});  // 433.333 -> 1060
  CHECK(cells[1] == std::vector<std::string>{"same", "-50.0%"});   // within 60%
  CHECK(cells[3] == std::vector<std::string>{"pays", "+183.0%"});  // 1000 -> 2830

  // Class bounds as compare has them: one size class up to 2 GPUs, then 3+.
  ReportOptions bounds;
  bounds.verdict.bounds.size_upper = {2};
  CHECK_THAT(build_report({dir + "/fifo", dir + "/sjf"}, bounds).html,
             Catch::Contains("<th>1-2</th><th>3+</th>"));

  // The per-class tables: size, work, tenant and user (the jobs have both).
  for (const char* heading : {"<h3>By GPUs</h3>", "<h3>By work (trace duration)</h3>",
                              "<h3>By tenant</h3>", "<h3>By user</h3>"}) {
    INFO(heading);
    CHECK(count_of(report.html, heading) == 1);
  }
  CHECK_THAT(report.html, Catch::Contains("<tr><td>a</td><td>sjf</td><td>2</td>"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("report --reference: picks the run, and a name no run has is an error",
          "[workflows][report][classes]") {
  const std::string dir = write_hand_runs(fresh_temp_dir("report-reference"));
  ReportOptions options;
  options.reference = "sjf";
  const std::string html = build_report({dir + "/fifo", dir + "/sjf"}, options).html;
  CHECK_THAT(html, Catch::Contains("against sjf</h2>"));
  const auto cells = verdict_cells(html);
  REQUIRE(cells.size() == 7);
  CHECK(cells[1] == std::vector<std::string>{"pays", "+100.0%"});  // fifo's 1-GPU job: 50 -> 100
  // Without fifo among the runs the first run is the reference.
  CHECK_THAT(build_report({dir + "/sjf", dir + "/fifo"}).html,
             Catch::Contains("against fifo</h2>"));
  CHECK_THAT(build_report({dir + "/sjf"}).html, !Catch::Contains("id=\"verdict\""));
  options.reference = "las";
  CHECK(error_of({dir + "/fifo", dir + "/sjf"}, options) ==
        "--reference las: no run of that name or policy (runs: fifo, sjf)");
  options.reference.reset();
  options.verdict.metric = "utilization";
  CHECK_THAT(error_of({dir + "/fifo"}, options),
             Catch::StartsWith("--verdict-metric utilization: expected one of wait_s.mean"));
  // The command: exit 2, one line, nothing written.
  const std::string out = dir + "/r.html";
  const auto bad =
      run_command(schedlab_binary() + " report " + shell_quote(dir + "/fifo") + " " +
                  shell_quote(dir + "/sjf") + " --reference las -o " + shell_quote(out));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "--reference las: no run of that name or policy (runs: fifo, sjf)\n");
  CHECK_FALSE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

TEST_CASE("report over-time charts zoom to the busy window", "[workflows][report][classes]") {
  using report::SeriesRow;
  // Idle at 0, busy from 100 to 300 (the row at 200 ends at 300), idle until 10000.
  const std::vector<SeriesRow> a = {
      {0, 0, 8, 0}, {100, 4, 4, 0}, {200, 0, 8, 2}, {300, 0, 8, 0}, {10000, 0, 8, 0}};
  CHECK(report::busy_window({&a}) == std::pair{100.0, 300.0});
  // Over several runs: the earliest start and the latest end; a last row ends at itself.
  const std::vector<SeriesRow> b = {{50, 0, 8, 1}, {60, 0, 8, 0}, {400, 1, 7, 0}};
  CHECK(report::busy_window({&a, &b}) == std::pair{50.0, 400.0});
  const std::vector<SeriesRow> idle = {{0, 0, 8, 0}, {100, 0, 8, 0}};
  CHECK_FALSE(report::busy_window({&idle}).has_value());

  const std::string dir = fresh_temp_dir("report-window");
  write_files_atomically(
      dir + "/run",
      {{"summary.json", R"({"policy": "fifo", "wait_s": {"mean": 1}})"},
       {"timeseries.csv",
        "time_s,busy_gpus,idle_gpus,queued_jobs\n0,0,8,0\n100,4,4,0\n200,0,8,2\n300,0,8,0\n"
        "10000,0,8,0\n"}});
  const Report report = build_report({dir + "/run"});
  CHECK_THAT(report.html, Catch::Contains("the busy window, 1.667 to 5 min"));
  // The x axis runs over the window only: no tick at 0 or beyond 5 min.
  const std::string util = chart_named(report.html, "GPU utilization over time");
  REQUIRE_FALSE(util.empty());
  CHECK(count_of(util, "text-anchor=\"middle\">0</text>") == 0);
  CHECK(count_of(util, "text-anchor=\"middle\">160</text>") == 0);
  std::filesystem::remove_all(dir);
}
