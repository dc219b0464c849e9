#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/report.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/trace.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

// The chart layer is internal to the library; its formatter and text-width estimate are the
// contract the tick-spacing test checks against.
#include "schedlab/report_svg.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

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

std::vector<std::string> all_charts(const std::string& html) {
  std::vector<std::string> charts;
  for (std::size_t at = html.find("<svg class=\"chart\""); at != std::string::npos;
       at = html.find("<svg class=\"chart\"", at + 1))
    charts.push_back(html.substr(at, html.find("</svg>", at) - at));
  return charts;
}

// Horizontal-axis tick labels of a chart, as (x, text), grouped by their baseline y.
std::map<std::string, std::vector<std::pair<double, std::string>>> x_ticks(const std::string& svg) {
  std::map<std::string, std::vector<std::pair<double, std::string>>> rows;
  for (const auto& m : matches(svg,
                               "<text class=\"tick\" x=\"([-0-9.]+)\" y=\"([-0-9.]+)\" "
                               "text-anchor=\"middle\">([^<]*)</text>"))
    rows[m[1]].emplace_back(std::stod(m[0]), m[2]);
  for (auto& [y, ticks] : rows) std::sort(ticks.begin(), ticks.end());
  return rows;
}

// Smallest free space between neighbouring x tick labels of a chart (by the documented width
// estimate); +infinity with fewer than two labels.
double smallest_tick_gap(const std::string& svg) {
  double smallest = std::numeric_limits<double>::infinity();
  for (const auto& [y, ticks] : x_ticks(svg))
    for (std::size_t i = 1; i < ticks.size(); ++i)
      smallest = std::min(smallest, ticks[i].first - ticks[i - 1].first -
                                        (report::text_width(ticks[i].second, 10) +
                                         report::text_width(ticks[i - 1].second, 10)) /
                                            2);
  return smallest;
}

// A run directory by hand: a minimal summary and a jobs.csv whose waits and JCTs spread from
// under a second to about eight years (log-spaced), so the CDF axes span 1 s .. 10^9 s.
std::string write_wide_run(const std::string& dir, const std::string& policy) {
  std::string jobs = "job_id,waiting_time,turnaround_time\n";
  for (int i = 0; i < 60; ++i) {
    const double wait = 0.5 * std::pow(10.0, i * 8.7 / 59);
    jobs += fmt::format("{},{},{}\n", i, wait, wait * 1.5 + 30);
  }
  write_files_atomically(
      dir, {{"summary.json", "{\"policy\": \"" + policy + "\", \"wait_s\": {\"mean\": 40000}}\n"},
            {"jobs.csv", jobs}});
  return dir;
}

}  // namespace

TEST_CASE("report of run outputs: every chart kind, self-contained, deterministic",
          "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report");
  const Trace trace = trace_from_csv(small_trace_csv(), "small.csv");
  const std::string small = write_run(dir + "/small", trace, kSmallCluster);
  const std::string large = write_run(dir + "/large", trace, "4x8:V100");
  const Report report = build_report({small, large + "/summary.json"});
  // 2 over time + 2 Gantt + 2 CDFs + 8 summary bars + energy + idle GPU-hours + restarts + lost
  // work.
  CHECK(report.charts == 18);
  check_charts(report.html, 18);
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
  // 2 runs x 4 line charts, each run named once per chart (at its line's end or in a legend).
  CHECK(count_of(html, "class=\"direct-label\"") + count_of(html, "class=\"legend-label\"") == 8);
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
  // 16 per-policy charts + 2 Gantt + 8 metrics against load (one trace, one cluster).
  CHECK(report.charts == 26);
  check_charts(report.html, 26);
  CHECK_THAT(report.html, Catch::Contains("Metrics against load"));
  CHECK_THAT(report.html, Catch::Contains("load scale (x the trace&#39;s arrival rate)"));
  CHECK_THAT(report.html, Catch::Contains("mean over 3 seeds, band: 95% CI"));
  CHECK_THAT(report.html, Catch::Contains("at load scale 1 "));
  // fifo ignores the seed: the band has zero width but is drawn for both variants.
  CHECK(count_of(report.html, "class=\"band\"") == 16);
  const Report at_two =
      build_report({options.out_dir + "/results.jsonl"}, ReportOptions{"t", 2.0, {}, {}, {}, {}});
  CHECK_THAT(at_two.html, Catch::Contains("at load scale 2 "));
  CHECK(error_of({options.out_dir}, ReportOptions{"t", 3.0, {}, {}, {}, {}}) ==
        "--load 3: not a load scale of " + options.out_dir + "/results.jsonl");
  fs::remove_all(dir);
}

TEST_CASE("report rejects bad input with one line naming the file", "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report-bad");
  CHECK(error_of({dir + "/nothing"}) == dir + "/nothing: no such file or directory");
  CHECK(error_of({dir}) ==
        dir + ": directory holds no summary.json, results.jsonl or compare.json");
  fs::create_directories(dir + "/run");
  std::ofstream(dir + "/run/summary.json") << "{\"policy\": \"fifo\", \"wait_s\": {\"mean\": 1}}";
  CHECK(error_of({dir + "/run"}) ==
        dir +
            "/run: incomplete output set: no .schedlab-complete marker (the command writing it "
            "was interrupted, or it was not written by schedlab); run it again");
  std::ofstream(dir + "/run/" + kCompleteMarker) << "summary.json\n";
  std::ofstream(dir + "/run/timeseries.csv") << "time_s,busy_gpus,idle_gpus,queued_jobs\n0,1,x,0\n";
  CHECK(error_of({dir + "/run"}) ==
        dir + "/run/timeseries.csv:2: column 'idle_gpus': expected a number, got 'x'");
  std::ofstream(dir + "/run/timeseries.csv") << "time_s,busy_gpus\n0,1\n";
  CHECK(error_of({dir + "/run"}) == dir + "/run/timeseries.csv:1: missing column 'idle_gpus'");
  fs::remove(dir + "/run/timeseries.csv");
  // Without timeseries.csv and jobs.csv the report still has its summary charts, with notes.
  const Report partial = build_report({dir + "/run"});
  CHECK(partial.charts == 1);        // mean wait is the only metric present
  CHECK(partial.notes.size() == 3);  // no timeseries.csv, jobs.csv, attempts.csv
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

TEST_CASE("report numbers share one format: 3 significant digits, k/M/G suffixes",
          "[workflows][report]") {
  using report::format_value;
  CHECK(format_value(0) == "0");
  CHECK(format_value(-0.0) == "0");
  CHECK(format_value(0.046123) == "0.0461");
  CHECK(format_value(2.5) == "2.5");
  CHECK(format_value(11.26) == "11.3");
  CHECK(format_value(172.04) == "172");
  CHECK(format_value(999.96) == "1k");  // rounds before picking the suffix
  CHECK(format_value(1176) == "1.18k");
  CHECK(format_value(88720) == "88.7k");
  CHECK(format_value(823399) == "823k");
  CHECK(format_value(1.2e6) == "1.2M");
  CHECK(format_value(3.4e9) == "3.4G");
  CHECK(format_value(-2.5) == "-2.5");
  CHECK(format_value(10050, 4) == "10.05k");
}

TEST_CASE("report tick labels keep a gap, and close log ticks keep the unit boundary",
          "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report-ticks");
  const Report wide =
      build_report({write_wide_run(dir + "/a", "fifo"), write_wide_run(dir + "/b", "sjf")});
  // The axes span 9 decades: 10 h and 1 d sit about 21 units apart, too close for both
  // labels; 1 d (a unit boundary) stays.
  for (const char* title :
       {"Wait time, cumulative distribution", "Job completion time, cumulative distribution"}) {
    INFO(title);
    const std::string svg = chart_named(wide.html, title);
    REQUIRE_FALSE(svg.empty());
    std::vector<std::string> texts;
    for (const auto& [y, ticks] : x_ticks(svg))
      for (const auto& tick : ticks) texts.push_back(tick.second);
    CHECK(std::count(texts.begin(), texts.end(), "1 d") == 1);
    CHECK(std::count(texts.begin(), texts.end(), "10 h") == 0);
    CHECK(std::count(texts.begin(), texts.end(), "1 h") == 1);
    CHECK(std::count(texts.begin(), texts.end(), "1 min") == 1);
    CHECK(texts.size() >= 6);
    CHECK(smallest_tick_gap(svg) >= report::kMinTickGap - 0.1);  // coordinates have 1 decimal
  }
  // Every chart of a simulated report, too.
  const Trace trace = trace_from_csv(small_trace_csv(), "small.csv");
  const Report runs = build_report({write_run(dir + "/small", trace, kSmallCluster)});
  for (const std::string& html : {wide.html, runs.html})
    for (const auto& svg : all_charts(html)) {
      INFO(svg.substr(0, 200));
      CHECK(smallest_tick_gap(svg) >= report::kMinTickGap - 0.1);
    }
  fs::remove_all(dir);
}

TEST_CASE("stacked bars: key swatches match segment fills, tooltips and totals carry units",
          "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report-stacked");
  const Trace trace = trace_from_csv(small_trace_csv(), "small.csv");
  const std::string small = write_run(dir + "/small", trace, kSmallCluster);
  const std::string large = write_run(dir + "/large", trace, "4x8:V100");
  const Report report = build_report({small, large});
  struct Expected {
    const char* title;
    std::vector<std::string> segments;
    std::string unit;
  };
  for (const Expected& expected :
       {Expected{"GPU energy", {"busy GPUs", "idle GPUs"}, " kWh"},
        Expected{"Idle GPU-hours", {"idle while jobs wait", "idle, queue empty"}, " GPU-hours"},
        Expected{"Restarts", {"preemptions", "walltime kills"}, ""}}) {
    INFO(expected.title);
    const std::string svg = chart_named(report.html, expected.title);
    REQUIRE_FALSE(svg.empty());
    // The key: one swatch per segment, in stacking order, each with its own colour.
    std::map<std::string, std::string> key;  // segment -> swatch fill
    std::vector<std::string> order;
    for (const auto& m : matches(svg,
                                 "<rect class=\"key\"[^>]* fill=\"(#[0-9A-Fa-f]{6})\"/>\n<text "
                                 "class=\"key-label\"[^>]*>([^<]*)</text>")) {
      key[m[1]] = m[0];
      order.push_back(m[1]);
    }
    std::vector<std::string> escaped;
    for (const auto& segment : expected.segments) escaped.push_back(markup_escape(segment));
    CHECK(order == escaped);
    CHECK(key.size() == expected.segments.size());
    CHECK(key.begin()->second != std::next(key.begin())->second);
    // Every segment of every bar: filled like its key swatch, titled "run, segment: value unit".
    const auto bars =
        matches(svg,
                "<rect class=\"mark bar\"[^>]* fill=\"(#[0-9A-Fa-f]{6})\"><title>([^<]*?), "
                "([^<,]*|idle, queue empty): ([^<]*)</title></rect>");
    CHECK(bars.size() == 2 * expected.segments.size());
    for (const auto& bar : bars) {
      INFO(bar[1] << " / " << bar[2] << " = " << bar[3]);
      REQUIRE(key.contains(bar[2]));
      CHECK(bar[0] == key[bar[2]]);
      CHECK_THAT(bar[3], Catch::Matches("-?[0-9.]+[kMG]?" + expected.unit));
    }
    // The total after each of the 2 bars, with its unit; it equals the sum of the segments.
    const auto totals = matches(svg, "<text class=\"value\"[^>]*>([^<]*)</text>");
    REQUIRE(totals.size() == 2);
    for (const auto& total : totals)
      CHECK_THAT(total[0], Catch::Matches("-?[0-9.]+[kMG]?" + expected.unit));
  }
  const std::string energy = chart_named(report.html, "GPU energy");
  const auto summary = nlohmann::json::parse(read_text(small + "/summary.json"));
  const double busy = summary["energy_kwh"]["gpu_busy"].get<double>();
  const double idle = summary["energy_kwh"]["gpu_idle"].get<double>();
  CHECK_THAT(energy,
             Catch::Contains(fmt::format("busy GPUs: {} kWh</title>", report::format_value(busy))));
  CHECK_THAT(energy,
             Catch::Contains(fmt::format(">{} kWh</text>", report::format_value(busy + idle))));
  fs::remove_all(dir);
}

TEST_CASE("report numbers and axes: one format, a unit on every axis", "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report-units");
  const std::string trace_path = write_small_trace(dir);
  SweepRunOptions options;
  options.out_dir = dir + "/sweep";
  options.jobs = 2;
  run_sweep(parse_sweep_spec(small_sweep_spec(trace_path), "spec.json"), options);
  const Report report = build_report({options.out_dir});
  const auto labels = matches(report.html, "class=\"axis-label\"[^>]*>([^<]*)</text>");
  CHECK(labels.size() == report.charts * 1 + 12);  // 12 line charts have two axes
  for (const auto& label : labels) {
    INFO(label[0]);
    CHECK_THAT(label[0], Catch::Matches(".+ \\(.+\\)"));
  }
  // Bar-end values: at most 3 significant digits, then a unit (or none for counts/ratios).
  const auto values = matches(report.html, "<text class=\"value\"[^>]*>([^<]*)</text>");
  CHECK(values.size() >= 20);
  for (const auto& value : values) {
    INFO(value[0]);
    std::smatch m;
    REQUIRE(std::regex_match(value[0], m, std::regex("(-?[0-9.]+)[kMG]?(%| [a-zA-Z-]+)?( ± .+)?")));
    std::string digits = m[1].str();
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    digits.erase(0, std::min(digits.find_first_not_of("0-"), digits.size()));
    CHECK(digits.size() <= 3);
  }
  // Duration statistics of one quantity share a unit.
  const std::string mean_wait = chart_named(report.html, "Mean wait");
  const std::string p95_wait = chart_named(report.html, "95th percentile wait");
  const auto unit_of = [](const std::string& svg) {
    const auto m = matches(svg, "class=\"axis-label\"[^>]*>[^<(]*\\(([^)]*)\\)</text>");
    return m.empty() ? std::string("?") : m.front()[0];
  };
  CHECK(unit_of(mean_wait) == unit_of(p95_wait));
  fs::remove_all(dir);
}

TEST_CASE("report of a sweep with one load scale has no metric-vs-load charts, and says so",
          "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report-one-load");
  const std::string trace_path = write_small_trace(dir);
  auto spec_json = small_sweep_spec(trace_path);
  spec_json["load_scales"] = {1};
  SweepRunOptions options;
  options.out_dir = dir + "/sweep";
  options.jobs = 2;
  run_sweep(parse_sweep_spec(spec_json, "spec.json"), options);
  const Report report = build_report({options.out_dir});
  CHECK(report.charts == 18);  // the per-policy charts only (2 Gantt)
  check_charts(report.html, 18);
  CHECK(count_of(report.html, "Metrics against load") == 0);
  CHECK(count_of(report.html, " vs load") == 0);
  CHECK(count_of(report.html, "load scale (x the trace") == 0);
  REQUIRE(report.notes.size() == 2);
  // Two seeds: the intervals exist but are wide, and the report says so.
  CHECK(report.notes[0] ==
        "Only 2 replicates: the 95% intervals use Student's t with 1 degree of freedom "
        "(t = 12.71) and are wide; 5 or more replicates narrow them.");
  CHECK(report.notes[1] ==
        "the sweep has one load scale (1): no metric-vs-load charts; the bars show each metric at "
        "that load");
  CHECK_THAT(report.html, Catch::Contains("<p class=\"note\">the sweep has one load scale (1)"));
  fs::remove_all(dir);
}

TEST_CASE("report leaves a run without a metric out of that chart instead of drawing 0",
          "[workflows][report]") {
  const std::string dir = fresh_temp_dir("report-missing");
  const Trace trace = trace_from_csv(small_trace_csv(), "small.csv");
  const std::string small = write_run(dir + "/small", trace, kSmallCluster);
  const std::string large = write_run(dir + "/large", trace, "4x8:V100");
  auto summary = nlohmann::ordered_json::parse(read_text(small + "/summary.json"));
  summary.erase("wait_s");
  summary["energy_kwh"]["gpu_idle"] = "x";
  write_files_atomically(small, {{"summary.json", summary.dump(2)}});
  const Report report = build_report({small, large});
  // Mean and p95 wait and GPU energy show only the other run, and say so.
  const std::string small_label = "fifo (" + fs::path(small).lexically_normal().string() + ")";
  const std::string large_label = "fifo (" + fs::path(large).lexically_normal().string() + ")";
  CHECK(count_of(report.html, "; no value for " + markup_escape(small_label)) == 3);
  CHECK(report.charts == 18);
  const std::string wait_chart = chart_named(report.html, "Mean wait");
  REQUIRE_FALSE(wait_chart.empty());
  CHECK(wait_chart.find(markup_escape(small_label)) == std::string::npos);
  CHECK(wait_chart.find(markup_escape(large_label)) != std::string::npos);
  const std::string utilization_chart = chart_named(report.html, "GPU utilization");
  CHECK(utilization_chart.find(markup_escape(small_label)) != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("line charts name series at the line ends or in a legend, without leader lines",
          "[workflows][report]") {
  // Ends far apart: names right of the line ends, at the ends' heights.
  report::LineChart chart;
  chart.title = "t";
  chart.x.label = "x (s)";
  chart.y.label = "y (count)";
  chart.series = {{"low", "#0072B2", {{0, 1}, {10, 10}}, {}, false},
                  {"high", "#D55E00", {{0, 2}, {10, 90}}, {}, false}};
  const std::string apart = report::render_line_chart(chart);
  const auto labels = matches(apart,
                              "<text class=\"direct-label\" x=\"([0-9.]+)\" y=\"([0-9.]+)\" "
                              "fill=\"(#[0-9A-F]+)\">([a-z]+)<");
  REQUIRE(labels.size() == 2);
  CHECK(count_of(apart, "legend-label") == 0);
  std::map<std::string, std::pair<double, double>> ends;  // colour -> last point of its line
  for (const auto& m : matches(apart,
                               "<path class=\"mark line\" d=\"[^\"]* L([0-9.]+),([0-9.]+)\" "
                               "stroke=\"(#[0-9A-F]+)\""))
    ends[m[2]] = {std::stod(m[0]), std::stod(m[1])};
  for (const auto& label : labels) {
    INFO(label[3]);
    REQUIRE(ends.contains(label[2]));
    CHECK(std::stod(label[0]) == Approx(ends[label[2]].first + 6).margin(0.11));
    CHECK(std::abs(std::stod(label[1]) - 4 - ends[label[2]].second) <= 0.11);
  }
  // Ends that coincide (or lines ending at different x): a legend, no names at the ends.
  chart.series[1].points.back().y = 10.1;  // 2 units above the other end
  const std::string close = report::render_line_chart(chart);
  CHECK(count_of(close, "class=\"direct-label\"") == 0);
  CHECK(count_of(close, "class=\"legend-label\"") == 2);
  chart.series[1].points.back() = {8, 90};
  CHECK(count_of(report::render_line_chart(chart), "class=\"legend-label\"") == 2);

  // Whole reports: no leader lines, no dashed strokes (dashes mark reference levels, such as a
  // tenant's entitlement, and these runs have none; the style sheet's one rule defines them);
  // every line chart names each of its series once.
  const std::string dir = fresh_temp_dir("report-labels");
  const Trace trace = trace_from_csv(small_trace_csv(), "small.csv");
  const std::string small = write_run(dir + "/small", trace, kSmallCluster);
  const std::string large = write_run(dir + "/large", trace, "4x8:V100");
  const Report report = build_report({small, large});
  CHECK(count_of(report.html, "leader") == 0);
  CHECK(count_of(report.html, "stroke-dasharray") == 1);
  CHECK(count_of(report.html, " dashed\"") == 0);
  std::size_t line_charts = 0;
  for (const auto& svg : all_charts(report.html)) {
    if (count_of(svg, "class=\"mark line\"") == 0) continue;
    ++line_charts;
    CHECK(count_of(svg, "class=\"direct-label\"") + count_of(svg, "class=\"legend-label\"") == 2);
  }
  CHECK(line_charts == 4);
  fs::remove_all(dir);
}
