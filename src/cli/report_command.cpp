// schedlab report: one self-contained HTML file from run outputs or sweep results.
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/error.hpp"
#include "schedlab/job_classes.hpp"
#include "schedlab/output.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/report.hpp"
#include "schedlab/trace_filter.hpp"

namespace schedlab::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> inputs;
  std::string out = "report.html";
  std::string title;
  double load = 0;
  std::string from;
  std::string to;
  std::string reference;
  std::string verdict_metric = "wait_s.mean";
  double verdict_threshold_pct = 5;
  std::string size_classes;
  std::string duration_classes;
};

// --from/--to: seconds of simulated time, or with a unit (90s, 30m, 36h, 2d).
double window_end(const char* option, const std::string& text) {
  const auto ms = parse_time_with_unit(text);
  if (!ms)
    throw ConfigError(
        fmt::format("{} '{}': expected a time >= 0 in seconds, or with a unit: 90s, 30m, 36h, 2d",
                    option, text));
  return static_cast<double>(*ms) / 1000.0;
}

}  // namespace

Action add_report_command(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "write one self-contained HTML report (inline SVG charts) of run outputs or sweep results");
  cmd->add_option("results", a->inputs,
                  "run output directories (one per policy) or their summary.json, compare -o "
                  "directories, or one sweep output directory")
      ->required();
  cmd->add_option("-o,--out", a->out, "HTML file to write")
      ->capture_default_str()
      ->check(non_empty_output_path());
  cmd->add_option("--title", a->title, "page title");
  cmd->add_option("--load", a->load,
                  "sweeps: load scale shown in the per-policy charts (default: closest to 1)");
  cmd->add_option("--from", a->from,
                  "Gantt charts: window start, seconds of simulated time or with a unit (36h, "
                  "2d); default: the busiest 24 h");
  cmd->add_option("--to", a->to,
                  "Gantt charts: window end, as --from (given one of them, the other defaults to "
                  "the runs' first start or last end)");
  cmd->add_option("--reference", a->reference,
                  "verdict table: the run every other is compared against, by label or policy "
                  "(default: fifo when a run is fifo, else the first run)");
  cmd->add_option("--verdict-metric", a->verdict_metric,
                  "verdict table: wait_s.mean, wait_s.p95, queued_s.mean, jct_s.mean or "
                  "bounded_slowdown.mean")
      ->capture_default_str();
  cmd->add_option("--verdict-threshold", a->verdict_threshold_pct,
                  "verdict table: percent change beyond which a class pays (red) or gains (green)")
      ->capture_default_str();
  cmd->add_option("--size-classes", a->size_classes,
                  "job classes: upper GPU bounds of the classes but the last (default 1,4,8: 1, "
                  "2-4, 5-8, 9+)");
  cmd->add_option("--duration-classes", a->duration_classes,
                  "job classes: upper work bounds of the classes but the last (default "
                  "10m,1h,6h,1d)");
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    ReportOptions options;
    if (!a->title.empty()) options.title = a->title;
    if (cmd->count("--load")) options.load_scale = a->load;
    if (cmd->count("--from")) options.from_s = window_end("--from", a->from);
    if (cmd->count("--to")) options.to_s = window_end("--to", a->to);
    if (cmd->count("--reference")) options.reference = a->reference;
    options.verdict.metric = a->verdict_metric;
    options.verdict.threshold_pct = a->verdict_threshold_pct;
    if (!a->size_classes.empty())
      options.verdict.bounds.size_upper = parse_size_bounds("--size-classes", a->size_classes);
    if (!a->duration_classes.empty())
      options.verdict.bounds.duration_upper_ms =
          parse_duration_bounds("--duration-classes", a->duration_classes);
    const std::filesystem::path out(a->out);
    if (out.filename().empty())
      throw ConfigError(fmt::format("--out {}: expected a file name", a->out));
    const Report report = build_report(a->inputs, options);
    const std::string dir = out.parent_path().empty() ? "." : out.parent_path().string();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    write_file_atomically(a->out, report.html);
    for (const auto& note : report.notes)
      std::fprintf(stderr, "report: note: %s\n", printable_text(note).c_str());
    std::printf("report: %zu charts written to %s\n", report.charts, a->out.c_str());
    return kExitOk;
  };
}

}  // namespace schedlab::cli
