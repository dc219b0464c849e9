// schedlab check: the metric regression gate (and `run --baseline`, which uses the same code).
#include <cstdio>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/error.hpp"
#include "schedlab/regression_check.hpp"

namespace schedlab::cli {

namespace {

struct CheckArgs {
  std::string baseline;
  std::string current;
  std::vector<std::string> tolerances;
  std::vector<std::string> metrics;
  bool allow_setup_change = false;
  std::string format = "text";
  bool all = false;
};

constexpr const char* kToleranceHelp =
    "METRIC=PERCENT: allowed worsening, e.g. wait_s.p95=5% or wait_s=5 (all wait_s.*) or '*=1' "
    "(every directional metric); default 0% (repeatable)";

int print_and_decide(const CheckReport& report, const CheckInput& baseline,
                     const CheckInput& current, bool all, std::FILE* out,
                     const std::string& format = "text") {
  const std::string text = format == "json"    ? format_check_json(report, baseline, current)
                           : format == "junit" ? format_check_junit(report, baseline, current)
                           : format == "github"
                               ? format_check_github(report)
                               : format_check_report(report, baseline, current, all);
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
  return report.regressions > 0 ? kExitRegression : kExitOk;
}

}  // namespace

Action add_check_command(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check", "compare summaries or sweep results with a baseline; exit 1 on a metric regression");
  cmd->add_option("--baseline", a->baseline,
                  "baseline: summary.json, run output dir, results.jsonl or sweep dir")
      ->required();
  cmd->add_option("--current", a->current, "current results, same kinds as --baseline")->required();
  cmd->add_option("--tolerance", a->tolerances, kToleranceHelp);
  cmd->add_option("--metrics", a->metrics,
                  "METRIC[,METRIC...]: gate only these metrics (exact keys or prefixes, as "
                  "--tolerance); the others are left out of the report (repeatable)");
  cmd->add_flag("--allow-setup-change", a->allow_setup_change,
                "compare even when policy, its parameters, trace, cluster or options differ "
                "from the baseline's (default: refuse with exit 2, naming each difference)");
  cmd->add_option("--format", a->format,
                  "text (a table) | json | junit (JUnit XML, a test case per metric) | github "
                  "(GitHub Actions annotations)")
      ->check(CLI::IsMember({"text", "json", "junit", "github"}));
  cmd->add_flag("--all", a->all, "sweeps: also list unchanged metrics (summaries always list all)");
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    CheckOptions options;
    options.tolerances = parse_tolerances(a->tolerances);
    options.metrics = parse_metric_patterns(a->metrics);
    options.allow_setup_change = a->allow_setup_change;
    const CheckInput baseline = load_check_input(a->baseline);
    const CheckInput current = load_check_input(a->current);
    const CheckReport report = compare_results(baseline, current, options);
    // A summary's table lists every metric; a sweep's (one row per metric per cell) only the
    // changed ones unless --all.
    return print_and_decide(report, baseline, current, a->all || !baseline.sweep, stdout,
                            a->format);
  };
}

void add_baseline_options(CLI::App& command, BaselineGate& gate) {
  command.add_option(
      "--baseline", gate.baseline,
      "after the run, compare its summary with this baseline summary (exit 1 on a regression)");
  command.add_option("--tolerance", gate.tolerances, kToleranceHelp);
}

void prepare_baseline_gate(BaselineGate& gate) {
  if (gate.baseline.empty()) {
    if (!gate.tolerances.empty()) throw ConfigError("--tolerance needs --baseline");
    return;
  }
  const auto tolerances = parse_tolerances(gate.tolerances);
  auto loaded = std::make_shared<CheckInput>(load_check_input(gate.baseline));
  if (loaded->sweep)
    throw ConfigError(
        fmt::format("{}: is sweep results; run --baseline needs a summary.json", loaded->path));
  // Before the run: a tolerance naming no metric of the baseline is a typo, found up front.
  require_tolerance_metrics(tolerances, *loaded, nullptr);
  gate.loaded = std::move(loaded);
}

std::optional<BaselineComparison> compare_with_baseline(const BaselineGate& gate,
                                                        const nlohmann::ordered_json& summary) {
  if (!gate.loaded) return std::nullopt;
  CheckOptions options;
  options.tolerances = parse_tolerances(gate.tolerances);
  CheckInput current = summary_check_input("this run", summary);
  CheckReport report = compare_results(*gate.loaded, current, options);
  return BaselineComparison{std::move(current), std::move(report)};
}

int report_baseline_gate(const BaselineGate& gate,
                         const std::optional<BaselineComparison>& comparison, std::FILE* out) {
  if (!comparison) return kExitOk;
  return print_and_decide(comparison->report, *gate.loaded, comparison->current, true, out);
}

}  // namespace schedlab::cli
