// Metric regression gate: compares a current summary (or sweep results) with a baseline and
// decides, per metric, whether it got better or worse by its direction.
//
// Contracts:
// - Every numeric field is compared generically (dotted paths, e.g. "wait_s.p95"), so new
//   summary keys are reported without code changes.
// - Metrics have the direction the catalog gives them (metric_catalog.hpp): lower wait is
//   better, higher utilization is better. A change in the worse direction beyond the metric's
//   tolerance is a regression. The default tolerance of directional metrics is 0%: the simulator is
//   deterministic, so any worsening is a real change in behaviour.
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

// Throws ConfigError if the two inputs are of different kinds or a tolerance pattern matches no
// metric of either input.
CheckReport compare_results(const CheckInput& baseline, const CheckInput& current,
                            const std::vector<Tolerance>& tolerances);

// The table printed by `schedlab check`: changed rows (every row with `all_rows`), the notes
// and a closing count line.
std::string format_check_report(const CheckReport& report, const CheckInput& baseline,
                                const CheckInput& current, bool all_rows);

}  // namespace schedlab
