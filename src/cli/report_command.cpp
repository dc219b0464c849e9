// schedlab report: one self-contained HTML file from run outputs or sweep results.
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/error.hpp"
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
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    ReportOptions options;
    if (!a->title.empty()) options.title = a->title;
    if (cmd->count("--load")) options.load_scale = a->load;
    if (cmd->count("--from")) options.from_s = window_end("--from", a->from);
    if (cmd->count("--to")) options.to_s = window_end("--to", a->to);
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
