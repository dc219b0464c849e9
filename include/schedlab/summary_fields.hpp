// Generic access to the numeric fields of a summary.json (or of any JSON object), so that
// sweeps, reports and regression checks keep working when new metrics are added.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/error.hpp"  // json_error_text

namespace schedlab {

// One numeric leaf: its dotted path ("wait_s.p95") and value. Booleans, strings and arrays
// are not metrics and are skipped.
struct NumericField {
  std::string key;
  double value = 0.0;
};

// Every numeric leaf of `object` in document order (depth first). Empty for a non-object.
std::vector<NumericField> flatten_numeric(const nlohmann::ordered_json& object);

// The numeric leaf at a dotted path, or nullopt.
std::optional<double> numeric_at(const nlohmann::ordered_json& object, const std::string& key);

// The trace path a summary names: summary["trace"]["path"], or summary["trace"] itself where
// that is a string (summaries written before the trace key became an object). "" when absent.
std::string summary_trace_path(const nlohmann::ordered_json& summary);

// Shortest text that reads back as the same double ("12.5", "1985", "0.000123"); used for
// metric values in CSV tables so that they match summary.json.
std::string format_number(double value);

// Mean and 95% confidence interval of the mean (Student's t, two-sided) of a sample.
struct MeanCi {
  std::size_t n = 0;
  double mean = 0.0;
  double sd = 0.0;    // sample standard deviation (n - 1); 0 when n < 2
  double ci95 = 0.0;  // half-width: the interval is mean +- ci95; 0 when n < 2
  double min = 0.0;
  double max = 0.0;
};
MeanCi mean_ci95(const std::vector<double>& sample);

// What a reader must know about a 95% CI from `n` replicates, as one sentence; "" when n is
// large enough (5 or more) for the interval to need no remark. n < 2: no interval at all.
std::string replicate_count_note(std::size_t n);

// Two-sided 95% quantile of Student's t with `df` >= 1 degrees of freedom (t_{0.975, df}).
double student_t_975(std::size_t df);

// Human-readable summary table for a terminal (src/metrics/summary_table.cpp).
std::string format_summary_table(const nlohmann::ordered_json& summary);

}  // namespace schedlab
