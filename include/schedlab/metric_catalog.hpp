// The catalog of metrics: every numeric key of summary.json with its unit, its direction, a
// label and a description. `check`, `report`, `compare`, `sweep` and the terminal summary
// table all name, scale and judge metrics through it, so a metric has one name (its
// summary.json key) and one unit everywhere. docs/metrics.md lists the same keys.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace schedlab {

enum class MetricDirection : std::uint8_t {
  kLowerIsBetter,
  kHigherIsBetter,
  kNeutral,     // describes the setup or the workload (cluster size, jobs submitted, events)
  kNeverGated,  // wall-clock timings
  kUnknown,     // not in the catalog (e.g. a key added to summary.json but not here)
};
const char* direction_text(MetricDirection direction);  // "lower is better", ...

struct MetricInfo {
  std::string_view key;   // summary.json dotted path ("wait_s.p95"); see `group`
  std::string_view unit;  // "s", "fraction", "ratio", "count", "GPU-h", "kWh", "kg", ""
  MetricDirection direction = MetricDirection::kUnknown;
  std::string_view label;        // short human name ("p95 wait"), for headings and titles
  std::string_view description;  // what is measured, one sentence
  int decimals = 3;              // decimals in human-readable tables
  // A group: the entry covers every key below `key` ("jobs.rejected_reasons.<reason>"), whose
  // names depend on the run.
  bool group = false;
};

// Every entry, in summary.json order.
std::span<const MetricInfo> metric_catalog();

// The entry of `key`: its exact entry, else the group whose key prefixes it; null if none.
const MetricInfo* find_metric(std::string_view key);
// The entry of a key the caller knows to be in the catalog (asserted).
const MetricInfo& catalog_metric(std::string_view key);
// The metrics `compare` shows, in its column order (summary.json keys).
std::span<const std::string_view> compared_metric_keys();

// The direction of `key`, kUnknown when the catalog has no entry for it.
MetricDirection metric_direction(std::string_view key);

// Whether `key` equals `prefix` or lies below it ("wait_s.p95" is below "wait_s").
bool key_has_prefix(std::string_view key, std::string_view prefix);

// Keys below this group are the run's options echoed into summary.json (its inputs, not
// results): aggregates over seeds leave them out.
inline constexpr std::string_view kOptionsGroup = "options";

// `value` (in the entry's unit) as tables show it: with the entry's decimals.
std::string metric_value_text(const MetricInfo& metric, double value);

// A duration as a person reads it: ms, s, min, h or d, whichever keeps the number between about
// 1 and 120 (2 days and more in days), with three significant digits: "13.0 ms", "11.3 h",
// "162 d".
std::string human_duration_text(double seconds);

// `value` (in the entry's unit) as the terminal summary shows it, unit included: durations by
// human_duration_text, fractions as percentages ("17.3 %"), counts and ratios bare, other
// units after the entry's decimals ("172223.57 GPU-h").
std::string metric_human_text(const MetricInfo& metric, double value);

}  // namespace schedlab
