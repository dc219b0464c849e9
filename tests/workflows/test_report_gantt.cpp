// The report's Gantt chart (rows, window, clipping, aggregation) and compare -o directories as
// report input.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/report.hpp"
#include "schedlab/trace.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

// The chart layer is internal to the library.
#include "../../src/workflows/report/report_gantt.hpp"
#include "schedlab/report_svg.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

// A run output set by hand: a summary naming the cluster's size, attempts.csv and (optional)
// jobs.csv.
std::string write_attempts_run(const std::string& dir, std::size_t nodes, std::size_t gpus,
                               const std::string& attempts, const std::string& jobs = "") {
  const std::string summary = fmt::format(
      "{{\"policy\": \"fifo\", \"cluster\": {{\"nodes\": {}, \"gpus\": {}}}, \"wait_s\": "
      "{{\"mean\": 1}}}}\n",
      nodes, gpus);
  std::vector<std::pair<std::string, std::string_view>> files = {{"summary.json", summary},
                                                                 {"attempts.csv", attempts}};
  if (!jobs.empty()) files.emplace_back("jobs.csv", jobs);
  write_files_atomically(dir, files);
  return dir;
}

constexpr const char* kAttemptsHeader =
    "job_id,attempt,start_time,end_time,gpus,allocated_resources,nodes,end_reason\n";

// One node of 8 GPUs. The busiest 24 h is [48 h, 72 h): it holds c (4 GPUs x 10000 s) and
// d (8 GPUs x 12 h); no window holds d and b, or d and e.
std::string busiest_day_attempts() {
  return "job_id,attempt,start_time,end_time,gpus,allocated_resources,nodes,end_reason\n"
         "a,1,0.000,86400.000,1,0,1,completed\n"
         "b,1,150000.000,160000.000,1,1,1,preempted\n"
         "c,1,190000.000,200000.000,4,2-5,1,completed\n"
         "d,1,216000.000,259200.000,8,0-7,1,failed\n"
         "e,1,300000.000,345600.000,1,0,1,completed\n";
}

struct BarBox {
  double x, y, width, height;
};

std::vector<BarBox> bars_of(const std::string& svg) {
  std::vector<BarBox> out;
  for (const auto& m : matches(svg,
                               "<rect class=\"mark bar\" x=\"([-0-9.]+)\" y=\"([-0-9.]+)\" "
                               "width=\"([-0-9.]+)\" height=\"([-0-9.]+)\""))
    out.push_back({std::stod(m[0]), std::stod(m[1]), std::stod(m[2]), std::stod(m[3])});
  return out;
}

// The time axis line of a Gantt chart: (x1, x2, y).
std::tuple<double, double, double> time_axis(const std::string& svg) {
  const auto m = matches(svg,
                         "<line class=\"axis\" x1=\"([-0-9.]+)\" y1=\"([-0-9.]+)\" "
                         "x2=\"([-0-9.]+)\" y2=\"[-0-9.]+\"/>");
  REQUIRE(m.size() == 1);
  return {std::stod(m[0][0]), std::stod(m[0][2]), std::stod(m[0][1])};
}

// A big run by hand: `attempts` attempts of 1 to 16 GPUs on nodes x 8 GPUs over two days, 20
// tenants (Zipf-like), some preempted or failed. Deterministic.
void write_big_run(const std::string& dir, std::size_t nodes, std::size_t attempts) {
  std::string csv = kAttemptsHeader;
  std::string jobs = "job_id,waiting_time,turnaround_time,tenant\n";
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53);
  };
  const std::uint32_t sizes[] = {1, 1, 1, 2, 4, 8, 16};
  for (std::size_t i = 0; i < attempts; ++i) {
    const std::uint32_t gpus = sizes[static_cast<std::size_t>(next() * 7)];
    const std::size_t node =
        static_cast<std::size_t>(next() * static_cast<double>(nodes - (gpus > 8 ? 1 : 0)));
    const std::size_t slot = gpus >= 8 ? 0 : static_cast<std::size_t>(next() * (8.0 / gpus));
    const std::size_t first = node * 8 + slot * gpus;
    const double start = std::floor(next() * 172800);
    const double end = start + 600 + std::floor(next() * 20000);
    const double kind = next();
    const char* reason = kind < 0.08 ? "preempted" : kind < 0.1 ? "failed" : "completed";
    const std::size_t tenant = 1 + static_cast<std::size_t>(20 * next() * next());
    csv += fmt::format("j{},1,{:.3f},{:.3f},{},{}-{},{},{}\n", i, start, end, gpus, first,
                       first + gpus - 1, gpus > 8 ? 2 : 1, reason);
    jobs += fmt::format("j{},0,1,t{}\n", i, tenant);
  }
  write_attempts_run(dir, nodes, nodes * 8, csv, jobs);
}

}  // namespace

TEST_CASE("Gantt chart of a small run: one row per GPU grouped by node, one bar per attempt",
          "[workflows][report][gantt]") {
  const std::string dir = fresh_temp_dir("gantt-small");
  const Trace trace = trace_from_csv(small_trace_csv(), "small.csv");
  const std::string run = write_run(dir + "/small", trace, kSmallCluster);  // 2 nodes x 8 GPUs
  const Report report = build_report({run});
  CHECK(report.notes.empty());
  const std::string svg = chart_named(report.html, "Schedule of fifo");
  REQUIRE_FALSE(svg.empty());
  CHECK_THAT(report.html, Catch::Contains("<section id=\"gantt\">"));
  // Rows: 16 GPUs in two labelled nodes, the second on a band 8 rows (of 16 units) high that
  // ends at the time axis.
  CHECK(matches(svg, "<text class=\"row-label\"[^>]*>([^<]*)</text>") ==
        std::vector<std::vector<std::string>>{{"node 0"}, {"node 1"}});
  const auto [axis_x1, axis_x2, axis_y] = time_axis(svg);
  const auto bands = matches(svg,
                             "<rect class=\"row-band\" x=\"[0-9.]+\" y=\"([0-9.]+)\" "
                             "width=\"[0-9.]+\" height=\"([0-9.]+)\"/>");
  REQUIRE(bands.size() == 1);
  CHECK(std::stod(bands[0][1]) == 128);
  CHECK(std::stod(bands[0][0]) + 128 == axis_y);
  // One bar per attempt and node it ran on (attempts.csv, split at GPU 8), each within the
  // 16 rows, with a tooltip naming the job.
  const std::string attempts = read_text(run + "/attempts.csv");
  CsvReader reader(attempts, "attempts.csv");
  std::vector<std::string_view> fields;
  reader.next_row(fields);
  std::size_t expected_bars = 0, rows_attempts = 0;
  while (reader.next_row(fields)) {
    ++rows_attempts;
    const std::string ids(fields[5]);
    for (const auto& range : matches(ids, "([0-9]+)(?:-([0-9]+))?")) {
      const int lo = std::stoi(range[0]), hi = range[1].empty() ? lo : std::stoi(range[1]);
      expected_bars += lo < 8 && hi >= 8 ? 2 : 1;
    }
  }
  CHECK(rows_attempts == 40);
  const auto bars = bars_of(svg);
  CHECK(bars.size() == expected_bars);
  CHECK(count_of(svg, "<title>job j") == expected_bars);
  for (const auto& bar : bars) {
    CHECK(bar.y >= axis_y - 16 * 16);
    CHECK(bar.y + bar.height <= axis_y);
    CHECK(std::fmod(bar.height, 16.0) == 0);
    CHECK(bar.x >= axis_x1 - 0.05);
    CHECK(bar.x + bar.width <= axis_x2 + 0.05);
  }
  // The run is shorter than a day: the window is all of it.
  CHECK_THAT(report.html, Catch::Contains("(the whole run: it spans no more than a day)"));
  CHECK_THAT(report.html, Catch::Contains("40 attempts in the window"));
  // Through the internal interface: 16 rows, neither aggregated nor bucketed.
  const report::GanttRun parsed = report::read_attempts(run + "/attempts.csv", 2, 16, {});
  const report::GanttCategories categories = report::gantt_categories({&parsed});
  CHECK(categories.kind == "job size");  // the small trace has no tenants
  CHECK(categories.labels.front() == "1 GPU");
  const auto window = *report::busiest_window({&parsed});
  const report::GanttChart chart =
      report::render_gantt("t", parsed, categories, window.first, window.second);
  CHECK(chart.rows == 16);
  CHECK_FALSE(chart.aggregated);
  CHECK_FALSE(chart.bucketed);
  CHECK(chart.bars == 40);
  fs::remove_all(dir);
}

TEST_CASE("the default Gantt window is the busiest 24 h", "[workflows][report][gantt]") {
  const std::string dir = fresh_temp_dir("gantt-busiest");
  const std::string run = write_attempts_run(dir + "/run", 1, 8, busiest_day_attempts());
  const report::GanttRun parsed = report::read_attempts(run + "/attempts.csv", 1, 8, {});
  REQUIRE(parsed.attempts.size() == 5);
  const auto window = report::busiest_window({&parsed});
  REQUIRE(window);
  CHECK(window->first == 172800);
  CHECK(window->second == 259200);
  CHECK(report::busy_gpu_seconds({&parsed}, 172800, 259200) == 40000 + 8 * 43200);
  // Day-long windows starting from 48 h to 52.8 h hold as much (the earliest is taken); every
  // other holds less.
  for (double t = 0; t + 86400 <= 345600; t += 3600) {
    INFO("window from " << t);
    if (t >= 172800 && t <= 190000)
      CHECK(report::busy_gpu_seconds({&parsed}, t, t + 86400) == 385600);
    else
      CHECK(report::busy_gpu_seconds({&parsed}, t, t + 86400) < 385600);
  }

  const Report report = build_report({run});
  CHECK_THAT(report.html, Catch::Contains("Window: simulated time 48 h to 72 h (the busiest 24 h"));
  const std::string svg = chart_named(report.html, "Schedule of fifo");
  REQUIRE_FALSE(svg.empty());
  CHECK(bars_of(svg).size() == 2);                          // c and d
  CHECK(count_of(svg, "<rect class=\"end-failed\"") == 1);  // d failed inside the window
  CHECK(count_of(svg, "<rect class=\"end-preempted\"") == 0);
  CHECK_THAT(svg, Catch::Contains(">failed</text>"));  // the legend explains the red end
  CHECK_THAT(report.html, Catch::Contains("2 attempts in the window, 107 busy GPU-hours"));
  // A run within a day: its whole span.
  const report::GanttRun short_run = [] {
    report::GanttRun r;
    r.nodes = 1;
    r.gpus = 8;
    r.job_ids = {"x"};
    r.tenants = {""};
    r.ranges = {{0, 0}};
    r.attempts.push_back({0, 1, 100, 5000, 1, report::AttemptEnd::kCompleted, 0, 1});
    return r;
  }();
  CHECK(report::busiest_window({&short_run}) == std::pair{100.0, 5000.0});
  fs::remove_all(dir);
}

TEST_CASE("the Gantt window set by --from/--to clips the bars", "[workflows][report][gantt]") {
  const std::string dir = fresh_temp_dir("gantt-window");
  const std::string run = write_attempts_run(dir + "/run", 1, 8, busiest_day_attempts());
  ReportOptions options;
  options.from_s = 230000;
  options.to_s = 250000;
  const Report clipped = build_report({run}, options);
  CHECK_THAT(clipped.html,
             Catch::Contains("Window: simulated time 63.89 h to 69.44 h (set by --from/--to)"));
  CHECK_THAT(clipped.html, Catch::Contains("1 attempt in the window"));
  const std::string svg = chart_named(clipped.html, "Schedule of fifo");
  // d alone, cut at both ends of the window: the bar spans the whole time axis, all 8 rows,
  // and has no end mark (d ends after the window).
  const auto bars = bars_of(svg);
  REQUIRE(bars.size() == 1);
  const auto [x1, x2, axis_y] = time_axis(svg);
  CHECK(bars[0].x == x1);
  CHECK(bars[0].x + bars[0].width == Approx(x2).margin(0.1));
  CHECK(bars[0].y + bars[0].height == axis_y);
  CHECK(bars[0].height == 8 * 16);
  CHECK(count_of(svg, "class=\"end-failed\"") == 0);
  // --from alone: up to the runs' last end.
  ReportOptions from_only;
  from_only.from_s = 250000;
  const Report tail = build_report({run}, from_only);
  CHECK_THAT(tail.html, Catch::Contains("simulated time 69.44 h to 96 h (set by --from/--to)"));
  CHECK_THAT(tail.html, Catch::Contains("2 attempts in the window"));  // d and e
  CHECK(count_of(chart_named(tail.html, "Schedule of fifo"), "<rect class=\"end-failed\"") == 1);
  ReportOptions empty;
  empty.from_s = 250000;
  empty.to_s = 250000;
  CHECK(error_of({run}, empty) == "--from/--to: the window is empty (250000 s to 250000 s)");

  // CLI: seconds or units; bad text is exit 2 with one line.
  const std::string out = dir + "/r.html";
  const auto ok = run_command(schedlab_binary() + " report " + shell_quote(run) +
                              " --from 2d --to 60h -o " + shell_quote(out));
  CHECK(ok.exit_code == 0);
  CHECK_THAT(read_text(out), Catch::Contains("simulated time 48 h to 60 h (set by --from/--to)"));
  const auto bad = run_command(schedlab_binary() + " report " + shell_quote(run) +
                               " --from 2x -o " + shell_quote(out));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "--from '2x': expected a time >= 0 in seconds, or with a unit: 90s, 30m, 36h, 2d\n");
  fs::remove_all(dir);
}

TEST_CASE("Gantt charts of big clusters aggregate rows and stay small",
          "[workflows][report][gantt]") {
  const std::string dir = fresh_temp_dir("gantt-big");
  // 512 nodes x 8 GPUs, 100,000 attempts: one row per 2 nodes, bucketed.
  write_big_run(dir + "/big", 512, 100000);
  const Report report = build_report({dir + "/big"});
  const std::string svg = chart_named(report.html, "Schedule of fifo");
  REQUIRE_FALSE(svg.empty());
  CHECK_THAT(report.html,
             Catch::Contains("4096 GPUs are too many for one row each: one row per group of 2 "
                             "nodes (256 rows)"));
  CHECK(count_of(svg, "class=\"mark bar\"") == 0);
  CHECK(count_of(svg, "<title>job ") == 0);
  CHECK(count_of(svg, "class=\"mark cell\"") >= 12);
  // At most one stretch per row and bucket.
  std::size_t stretches = 0;
  for (std::size_t at = svg.find("<path class=\"mark cell\""); at != std::string::npos;
       at = svg.find("<path class=\"mark cell\"", at + 1)) {
    const std::size_t d = svg.find(" d=\"", at) + 4;
    stretches += static_cast<std::size_t>(
        std::count(svg.begin() + static_cast<std::ptrdiff_t>(d),
                   svg.begin() + static_cast<std::ptrdiff_t>(svg.find('"', d)), 'M'));
  }
  CHECK(stretches > 256);
  CHECK(stretches <= 256 * (1240 / report::kBucketPx));
  CHECK(svg.size() < 1'500'000);
  CHECK(report.html.size() < 2'000'000);
  // Labels: the first row names its two nodes; 12 tenants have colours, 8 share "other".
  CHECK_THAT(svg, Catch::Contains(">nodes 0-1</text>"));
  CHECK_THAT(svg, Catch::Contains(">8 other tenants</text>"));
  CHECK_THAT(svg, Catch::Contains(">t1</text>"));
  CHECK_THAT(svg, Catch::Contains("busy share of the row&#39;s GPUs:"));
  CHECK(build_report({dir + "/big"}).html == report.html);  // deterministic

  // Through the internal interface (no tenants given: by job size): rows and drawing.
  const report::GanttRun big = report::read_attempts(dir + "/big/attempts.csv", 512, 4096, {});
  const report::GanttCategories sizes = report::gantt_categories({&big});
  CHECK(sizes.kind == "job size");
  const auto window = *report::busiest_window({&big});
  const report::GanttChart chart =
      report::render_gantt("t", big, sizes, window.first, window.second);
  CHECK(chart.aggregated);
  CHECK(chart.bucketed);
  CHECK(chart.rows == 256);

  // 32 nodes x 8 GPUs: a row per GPU, but too many bars for one <rect> each: bucketed.
  write_big_run(dir + "/mid", 32, 20000);
  const report::GanttRun mid = report::read_attempts(dir + "/mid/attempts.csv", 32, 256, {});
  const auto mid_window = *report::busiest_window({&mid});
  const report::GanttChart mid_chart = report::render_gantt(
      "t", mid, report::gantt_categories({&mid}), mid_window.first, mid_window.second);
  CHECK(mid_chart.rows == 256);
  CHECK_FALSE(mid_chart.aggregated);
  CHECK(mid_chart.bucketed);
  CHECK(mid_chart.bars > report::kMaxBars);
  CHECK(count_of(mid_chart.svg, "class=\"mark bar\"") == 0);
  CHECK(mid_chart.svg.size() < 1'500'000);
  fs::remove_all(dir);
}

TEST_CASE("report reads a compare -o directory and refuses an incomplete one",
          "[workflows][report][gantt]") {
  const std::string dir = fresh_temp_dir("gantt-compare");
  const std::string trace_path = write_small_trace(dir);
  const std::string out = dir + "/cmp";
  const auto compared = run_command(
      schedlab_binary() + " compare -t " + shell_quote(trace_path) + " -c " + kSmallCluster +
      " --policies fifo,sjf --param sjf:blocking=false -o " + shell_quote(out));
  INFO(compared.err);
  REQUIRE(compared.exit_code == 0);
  const Report report = build_report({out});
  // Both policies, labelled as compare labels them, with every chart of a run report.
  CHECK(report.charts == 18);
  CHECK(report.notes.empty());
  CHECK_FALSE(chart_named(report.html, "Schedule of fifo").empty());
  CHECK_FALSE(chart_named(report.html, "Schedule of sjf(blocking=false)").empty());
  CHECK_THAT(report.html, Catch::Contains(">sjf(blocking=false)</b>: " + out + "/sjf"));
  CHECK(build_report({out + "/compare.json"}).html == report.html);
  const auto cli = run_command(schedlab_binary() + " report " + shell_quote(out) + " -o " +
                               shell_quote(dir + "/r.html"));
  CHECK(cli.exit_code == 0);
  CHECK(cli.out == "report: 18 charts written to " + dir + "/r.html\n");

  // Without the directory's marker (an interrupted compare) or a policy's, it is refused.
  const std::string marker = read_text(out + "/" + kCompleteMarker);
  fs::remove(out + "/" + kCompleteMarker);
  CHECK_THAT(error_of({out}), Catch::StartsWith(out + ": incomplete output set"));
  std::ofstream(out + "/" + kCompleteMarker) << marker;
  CHECK(error_of({out}) == "(no error)");
  fs::remove(out + "/sjf/" + kCompleteMarker);
  CHECK_THAT(error_of({out}), Catch::StartsWith(out + "/sjf: incomplete output set"));
  fs::remove_all(dir);
}
