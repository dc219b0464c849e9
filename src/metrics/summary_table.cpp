#include <fmt/format.h>

#include "schedlab/metric_catalog.hpp"
#include "schedlab/summary_fields.hpp"

namespace schedlab {

std::string format_summary_table(const nlohmann::ordered_json& s) {
  std::string out = fmt::format("schedlab: policy {} on {}\n", s.at("policy").get<std::string>(),
                                summary_trace_path(s));
  // One row per metric, in summary.json order, labelled as the catalog says, in human units
  // (summary.json keeps the exact values); the options echo is the run's input and stays in
  // summary.json.
  for (const auto& field : flatten_numeric(s)) {
    const MetricInfo* metric = find_metric(field.key);
    if (metric == nullptr || metric->key == kOptionsGroup) continue;
    // Per-tenant figures are many: summary.json and tenants.csv hold them (fairness.* shows).
    if (key_has_prefix(field.key, "tenants")) continue;
    const std::string label = metric->group ? fmt::format("{}: {}", metric->label,
                                                          field.key.substr(metric->key.size() + 1))
                                            : std::string(metric->label);
    out += fmt::format("  {:<36} {}\n", label, metric_human_text(*metric, field.value));
  }
  return out;
}

}  // namespace schedlab
