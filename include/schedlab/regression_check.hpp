// Metric regression gate: compares a current summary (or sweep results) with a baseline and
// decides, per metric, whether it got better or worse by its direction.
//
// Contracts:
// - Every numeric field is compared generically (dotted paths, e.g. "wait_s.p95"), so new
//   summary keys are reported without code changes.
// - Metrics have the direction the catalog gives them (metric_catalog.hpp): lower wait is
//   better, higher utilization is better. A change in the worse direction beyond the metric's
//   tolerance is a regression. The default tolerance of directional metrics is
//   kDefaultTolerancePct (0.005%): the simulator is deterministic, so any worsening the report can
//   show ("+0.01%" or more) is a real change in behaviour, and none shows as "+0.00%".
// - The two inputs must have been set up alike (setup_differences): otherwise compare_results
//   refuses them (ConfigError naming every difference) unless CheckOptions::allow_setup_change,
//   when the differences become notes.
// - Neutral and unknown metrics get no verdict unless a tolerance names them (exactly or by a
//   prefix); then a change beyond it in either direction is a regression.
// - engine.wall_s is a wall-clock timing: reported, never gated.
// - A directional metric, or a sweep cell, present in the baseline but missing (or failed) in
//   the current results is a regression.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/metric_catalog.hpp"

namespace schedlab {

// --tolerance PATTERN=PERCENT[%]. PATTERN is a metric ("wait_s.p95"), a prefix covering its
// sub-metrics ("wait_s"), or "*" (every directional metric). The most specific pattern wins.
struct Tolerance {
  std::string pattern;
  double percent = 0.0;
};
// Throws ConfigError naming the bad item (syntax, negative percent, engine.wall_s).
std::vector<Tolerance> parse_tolerances(const std::vector<std::string>& items);

// The tolerance of a directional metric that no --tolerance names: half the last digit of the
// change column ("+0.00%"), so that a change printed as zero is never a regression.
inline constexpr double kDefaultTolerancePct = 0.005;

struct CheckOptions {
  std::vector<Tolerance> tolerances;
  // Metric patterns (exact keys or prefixes, as tolerances) to gate; empty: every metric.
  std::vector<std::string> metrics;
  // Compare summaries whose setups differ (the differences become notes).
  bool allow_setup_change = false;
};
// Splits "a,b" items of --metrics; throws ConfigError on an empty name.
std::vector<std::string> parse_metric_patterns(const std::vector<std::string>& items);

// What is compared: one summary, or the ok rows of sweep results keyed by cell.
struct CheckInput {
  std::string path;
  bool sweep = false;
  // (cell key, summary); the key is "" for a single summary.
  std::vector<std::pair<std::string, nlohmann::ordered_json>> summaries;
  std::vector<std::string> failed_cells;  // keys of sweep cells whose status is not ok
};
// Reads a summary.json, a run output directory, a sweep's results.jsonl or a sweep output
// directory. Throws ConfigError "PATH: what is wrong" on unreadable or malformed input.
CheckInput load_check_input(const std::string& path);
// Wraps an in-memory summary (used by `run --baseline`).
CheckInput summary_check_input(const std::string& label, nlohmann::ordered_json summary);

enum class Verdict {
  kUnchanged,
  kBetter,
  kWorseWithinTolerance,
  kRegression,
  kChanged,  // no direction and no tolerance: reported only
  kNew,      // only in the current results
  kMissing,  // only in the baseline (a regression when the metric has a direction)
};
const char* verdict_text(Verdict verdict);

struct MetricComparison {
  std::string cell;  // "" for a single summary
  std::string metric;
  std::optional<double> baseline;
  std::optional<double> current;
  double change_pct = 0.0;  // (current - baseline) / |baseline| * 100; +-inf from a 0 baseline
  MetricDirection direction = MetricDirection::kUnknown;
  std::optional<double> tolerance_pct;  // the tolerance applied, if any
  Verdict verdict = Verdict::kUnchanged;
  bool regression = false;
};

struct CheckReport {
  std::vector<MetricComparison> rows;
  std::vector<std::string> notes;  // differing setup fields, new cells
  std::size_t regressions = 0;
};

// Throws ConfigError "--tolerance P=X: no metric 'P' in BASELINE" for a pattern (other than "*")
// that prefixes no metric of `baseline` nor of `current` (may be null: baseline only).
void require_tolerance_metrics(const std::vector<Tolerance>& tolerances, const CheckInput& baseline,
                               const CheckInput* current);

// How two summaries' setups differ, one text per difference ("policy is \"fifo\" in the
// baseline, \"sjf\" now"). The setup is: policy, policy_params, trace.fingerprint, cluster
// (nodes, GPUs, GPU types) and options; a leaf present on one side only differs too. A group
// that one side does not record at all (policy_params, trace.fingerprint, cluster.gpu_types:
// summaries of schedlab before 0.1.0's setup record) is not compared; `unrecorded` gets a text
// naming it.
std::vector<std::string> setup_differences(const nlohmann::ordered_json& baseline,
                                           const nlohmann::ordered_json& current,
                                           std::vector<std::string>* unrecorded = nullptr);

// Throws ConfigError if the two inputs are of different kinds, a tolerance or metric pattern
// matches no metric of either input, or (unless options.allow_setup_change) their setups differ.
CheckReport compare_results(const CheckInput& baseline, const CheckInput& current,
                            const CheckOptions& options);
CheckReport compare_results(const CheckInput& baseline, const CheckInput& current,
                            const std::vector<Tolerance>& tolerances);

// The table printed by `schedlab check`: changed rows (every row with `all_rows`), the notes
// and a closing count line.
std::string format_check_report(const CheckReport& report, const CheckInput& baseline,
                                const CheckInput& current, bool all_rows);
// The closing count line of the table, without its newline.
std::string check_closing_line(const CheckReport& report);
// The report as one JSON document: inputs, regression count, every row and the notes.
std::string format_check_json(const CheckReport& report, const CheckInput& baseline,
                              const CheckInput& current);
// The report as JUnit XML: one test suite per cell (one for a summary), one test case per
// metric, a <failure> per regression; notes in the suites' <system-out>.
std::string format_check_junit(const CheckReport& report, const CheckInput& baseline,
                               const CheckInput& current);
// The report as GitHub Actions workflow commands: ::error per regression, ::warning per metric
// worse within its tolerance, ::notice per note, then the closing count line.
std::string format_check_github(const CheckReport& report);

}  // namespace schedlab
