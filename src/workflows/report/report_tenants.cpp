#include "report_tenants.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "schedlab/report_svg.hpp"

namespace schedlab::report {

namespace {

constexpr std::size_t kShownTenants = 7;
constexpr std::size_t kMaxPoints = 400;
constexpr std::size_t kMaxWaitTenants = 12;

// Bucket means of `values` at the bucket's first time, at most kMaxPoints buckets.
std::vector<Point> bucketed(const std::vector<double>& time_s, const std::vector<double>& values,
                            double unit_s) {
  std::vector<Point> out;
  const std::size_t bucket =
      std::max<std::size_t>(1, (values.size() + kMaxPoints - 1) / kMaxPoints);
  for (std::size_t begin = 0; begin < values.size(); begin += bucket) {
    const std::size_t end = std::min(values.size(), begin + bucket);
    double sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += values[i];
    out.push_back({time_s[begin] / unit_s, sum / static_cast<double>(end - begin)});
  }
  return out;
}

// GPU-seconds of one gpus.<tenant> column: each row holds from its time to the next row's.
double gpu_seconds(const std::vector<double>& time_s, const std::vector<double>& gpus) {
  double total = 0;
  for (std::size_t i = 0; i + 1 < time_s.size() && i < gpus.size(); ++i)
    total += gpus[i] * (time_s[i + 1] - time_s[i]);
  return total;
}

// Tenants by GPU-time over all runs, largest first (ties: by name).
std::vector<std::string> ranked_tenants(const std::vector<TenantRun>& runs) {
  std::map<std::string, double> totals;
  for (const auto& run : runs)
    for (std::size_t k = 0; k < run.names.size(); ++k)
      totals[run.names[k]] += gpu_seconds(run.time_s, run.gpus[k]);
  std::vector<std::string> names;
  names.reserve(totals.size());
  for (const auto& [name, total] : totals) names.push_back(name);
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return totals[a] > totals[b];
  });
  return names;
}

std::size_t rank_of(const std::vector<std::string>& ranked, const std::string& name) {
  return static_cast<std::size_t>(std::find(ranked.begin(), ranked.end(), name) - ranked.begin());
}

AxisSpec time_axis(const std::vector<double>& time_s, const DurationUnit& unit) {
  AxisSpec x;
  x.label = fmt::format("simulated time ({})", unit.name);
  x.include_zero = false;
  x.min = time_s.front() / unit.seconds;
  x.max = time_s.back() / unit.seconds;
  return x;
}

std::optional<TenantFigure> stacked_usage(const TenantRun& run,
                                          const std::vector<std::string>& ranked) {
  if (run.names.empty() || run.time_s.empty()) return std::nullopt;
  // The run's tenants in page rank order: the first kShownTenants drawn, the rest as others.
  std::vector<std::size_t> order(run.names.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return rank_of(ranked, run.names[a]) < rank_of(ranked, run.names[b]);
  });
  struct Layer {
    std::string label;
    std::string color;
    std::vector<double> gpus;
  };
  std::vector<Layer> layers;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::string& name = run.names[order[k]];
    if (k < kShownTenants || order.size() == kShownTenants + 1) {
      layers.push_back({name, tenant_color(rank_of(ranked, name)), run.gpus[order[k]]});
      continue;
    }
    if (layers.size() == kShownTenants)
      layers.push_back({fmt::format("{} others", order.size() - kShownTenants),
                        tenant_color(kTenantColorCount),
                        std::vector<double>(run.time_s.size(), 0.0)});
    auto& others = layers.back().gpus;
    for (std::size_t i = 0; i < others.size(); ++i) others[i] += run.gpus[order[k]][i];
  }
  const DurationUnit unit = duration_unit(run.time_s.back() - run.time_s.front());
  LineChart chart;
  chart.title = fmt::format("GPUs by tenant over time: {}", run.label);
  chart.x = time_axis(run.time_s, unit);
  chart.y.label = "busy GPUs (count, stacked)";
  std::vector<double> below(run.time_s.size(), 0.0);
  for (const Layer& layer : layers) {
    std::vector<double> top = below;
    for (std::size_t i = 0; i < top.size(); ++i) top[i] += layer.gpus[i];
    const auto upper = bucketed(run.time_s, top, unit.seconds);
    const auto lower = bucketed(run.time_s, below, unit.seconds);
    LineSeries series;
    series.label = layer.label;
    series.color = layer.color;
    series.points = upper;
    for (std::size_t i = 0; i < upper.size(); ++i) series.band.emplace_back(lower[i].y, upper[i].y);
    chart.series.push_back(std::move(series));
    below = std::move(top);
  }
  return TenantFigure{chart.title,
                      "each band is one tenant's busy GPUs, stacked in order of GPU-time over "
                      "all runs (largest at the bottom), in the tenant's colour; averaged over "
                      "equal time buckets",
                      render_line_chart(chart)};
}

// The GPUs a tenant is entitled to in a run: entitled_share x cluster GPUs; nullopt without.
std::optional<double> entitled_gpus(const TenantRun& run, const std::string& tenant) {
  if (run.cluster_gpus <= 0 || !run.tenants.is_object() || !run.tenants.contains(tenant))
    return std::nullopt;
  const auto& entry = run.tenants[tenant];
  if (!entry.contains("entitled_share") || !entry["entitled_share"].is_number())
    return std::nullopt;
  return entry["entitled_share"].get<double>() * run.cluster_gpus;
}

// One tenant's busy GPUs per run (in the runs' colours) and its entitlement (dashed, in the
// tenant's colour; one line per distinct entitlement).
std::optional<TenantFigure> usage_against_entitlement(const std::vector<const TenantRun*>& runs,
                                                      const std::string& tenant,
                                                      const std::string& color) {
  double first = std::numeric_limits<double>::infinity(), last = -first;
  for (const auto* run : runs) {
    first = std::min(first, run->time_s.front());
    last = std::max(last, run->time_s.back());
  }
  const DurationUnit unit = duration_unit(last - first);
  LineChart chart;
  chart.title = fmt::format("GPUs held by tenant {} against its entitlement", tenant);
  chart.x = time_axis({first, last}, unit);
  chart.y.label = "busy GPUs (count)";
  std::vector<double> entitlements;
  for (const auto* run : runs) {
    const auto column = std::find(run->names.begin(), run->names.end(), tenant);
    if (column == run->names.end()) continue;
    const auto& gpus = run->gpus[static_cast<std::size_t>(column - run->names.begin())];
    chart.series.push_back(
        {run->label, run->color, bucketed(run->time_s, gpus, unit.seconds), {}, false, false});
    if (const auto entitled = entitled_gpus(*run, tenant);
        entitled &&
        std::find(entitlements.begin(), entitlements.end(), *entitled) == entitlements.end())
      entitlements.push_back(*entitled);
  }
  if (entitlements.empty() || chart.series.empty()) return std::nullopt;
  for (const double entitled : entitlements)
    chart.series.push_back({fmt::format("entitlement {} GPUs", format_value(entitled)),
                            color,
                            {{first / unit.seconds, entitled}, {last / unit.seconds, entitled}},
                            {},
                            false,
                            true});
  return TenantFigure{chart.title,
                      "solid: the tenant's busy GPUs per run, averaged over equal time buckets; "
                      "dashed: its entitlement, entitled_share x the cluster's GPUs",
                      render_line_chart(chart)};
}

// Tenants with the most jobs over the runs (ties: first seen), at most kMaxWaitTenants.
std::vector<std::string> busiest_tenants(const std::vector<const TenantRun*>& runs) {
  std::vector<std::string> names;
  std::map<std::string, double> jobs;
  for (const auto* run : runs)
    for (const auto& [name, entry] : run->tenants.items()) {
      if (!jobs.contains(name)) names.push_back(name);
      if (entry.contains("jobs") && entry["jobs"].contains("submitted") &&
          entry["jobs"]["submitted"].is_number())
        jobs[name] += entry["jobs"]["submitted"].get<double>();
      else
        jobs[name] += 0;
    }
  std::stable_sort(names.begin(), names.end(),
                   [&](const std::string& a, const std::string& b) { return jobs[a] > jobs[b]; });
  if (names.size() > kMaxWaitTenants) names.resize(kMaxWaitTenants);
  return names;
}

std::optional<TenantFigure> wait_bars(const std::vector<const TenantRun*>& runs,
                                      const std::vector<std::string>& tenants, const char* stat,
                                      const std::string& title) {
  double max_s = 0;
  for (const auto* run : runs)
    for (const auto& name : tenants)
      if (run->tenants.contains(name) && run->tenants[name].contains("wait_s") &&
          run->tenants[name]["wait_s"].contains(stat) &&
          run->tenants[name]["wait_s"][stat].is_number())
        max_s = std::max(max_s, run->tenants[name]["wait_s"][stat].get<double>());
  const DurationUnit unit = duration_unit(max_s);
  BarChart chart;
  chart.title = title;
  chart.axis_label = fmt::format("wait ({})", unit.name);
  BarSegment segment;
  for (const auto& name : tenants)
    for (const auto* run : runs) {
      if (!run->tenants.contains(name)) continue;
      const auto& wait = run->tenants[name]["wait_s"];
      if (!wait.is_object() || !wait.contains(stat) || !wait[stat].is_number()) continue;
      chart.categories.push_back(runs.size() > 1 ? fmt::format("{} — {}", name, run->label) : name);
      chart.colors.push_back(run->color);
      segment.values.push_back(wait[stat].get<double>() / unit.seconds);
    }
  if (segment.values.empty()) return std::nullopt;
  chart.segments.push_back(std::move(segment));
  return TenantFigure{title,
                      fmt::format("summary tenants.<tenant>.wait_s.{}; lower is better; the {} "
                                  "tenants with the most jobs{}",
                                  stat, tenants.size(),
                                  runs.size() > 1 ? ", runs side by side in their colours" : ""),
                      render_bar_chart(chart)};
}

}  // namespace

std::vector<TenantFigure> tenant_figures(const std::vector<TenantRun>& runs, std::size_t max_runs) {
  std::vector<TenantFigure> out;
  const std::vector<std::string> ranked = ranked_tenants(runs);
  std::vector<const TenantRun*> drawn;
  for (const auto& run : runs) {
    if (drawn.size() == max_runs) break;
    if (auto figure = stacked_usage(run, ranked)) {
      out.push_back(std::move(*figure));
      drawn.push_back(&run);
    }
  }
  for (std::size_t k = 0; k < ranked.size() && k < kShownTenants && !drawn.empty(); ++k)
    if (auto figure = usage_against_entitlement(drawn, ranked[k], tenant_color(k)))
      out.push_back(std::move(*figure));
  std::vector<const TenantRun*> with_summary;
  for (const auto& run : runs)
    if (run.tenants.is_object() && !run.tenants.empty()) with_summary.push_back(&run);
  if (with_summary.empty()) return out;
  const std::vector<std::string> tenants = busiest_tenants(with_summary);
  if (auto mean = wait_bars(with_summary, tenants, "mean", "Mean wait by tenant"))
    out.push_back(std::move(*mean));
  if (auto p95 = wait_bars(with_summary, tenants, "p95", "95th percentile wait by tenant"))
    out.push_back(std::move(*p95));
  return out;
}

}  // namespace schedlab::report
