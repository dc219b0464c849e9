#include <fmt/format.h>

#include "schedlab/metric_catalog.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/summary_fields.hpp"

namespace schedlab {

namespace {

std::string unit_suffix(const MetricInfo& metric) {
  return metric.unit.empty() || metric.unit == "count" ? "" : fmt::format(" {}", metric.unit);
}

}  // namespace

std::string format_summary_table(const nlohmann::ordered_json& s) {
  std::string out = fmt::format("schedlab: policy {} on {}\n", s.at("policy").get<std::string>(),
                                summary_trace_path(s));
  // One row per metric, in summary.json order, labelled and rounded as the catalog says; the
  // options echo is the run's input and stays in summary.json.
  for (const auto& field : flatten_numeric(s)) {
    const MetricInfo* metric = find_metric(field.key);
    if (metric == nullptr || metric->key == kOptionsGroup) continue;
    const std::string label = metric->group ? fmt::format("{}: {}", metric->label,
                                                          field.key.substr(metric->key.size() + 1))
                                            : std::string(metric->label);
    out += fmt::format("  {:<36} {}{}\n", label, metric_value_text(*metric, field.value),
                       unit_suffix(*metric));
  }
  return out;
}

}  // namespace schedlab
