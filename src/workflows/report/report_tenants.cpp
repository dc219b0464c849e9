#include "report_tenants.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "report_svg.hpp"

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

std::optional<TenantFigure> stacked_usage(const TenantRun& run) {
  if (run.names.empty() || run.time_s.empty()) return std::nullopt;
  // Tenants by GPU-time, largest first (ties: column order).
  std::vector<std::size_t> order(run.names.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> totals;
  for (const auto& column : run.gpus)
    totals.push_back(std::accumulate(column.begin(), column.end(), 0.0));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return totals[a] > totals[b]; });
  std::vector<std::pair<std::string, std::vector<double>>> layers;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k < kShownTenants || order.size() == kShownTenants + 1) {
      layers.emplace_back(run.names[order[k]], run.gpus[order[k]]);
      continue;
    }
    if (layers.size() == kShownTenants)
      layers.emplace_back(fmt::format("{} others", order.size() - kShownTenants),
                          std::vector<double>(run.time_s.size(), 0.0));
    auto& others = layers.back().second;
    for (std::size_t i = 0; i < others.size(); ++i) others[i] += run.gpus[order[k]][i];
  }
  const DurationUnit unit = duration_unit(run.time_s.back());
  LineChart chart;
  chart.title = fmt::format("GPUs by tenant over time: {}", run.label);
  chart.x.label = fmt::format("simulated time ({})", unit.name);
  chart.y.label = "busy GPUs (count, stacked)";
  std::vector<double> below(run.time_s.size(), 0.0);
  for (std::size_t k = 0; k < layers.size(); ++k) {
    std::vector<double> top = below;
    for (std::size_t i = 0; i < top.size(); ++i) top[i] += layers[k].second[i];
    const auto upper = bucketed(run.time_s, top, unit.seconds);
    const auto lower = bucketed(run.time_s, below, unit.seconds);
    LineSeries series;
    series.label = layers[k].first;
    series.color = segment_color(k);
    series.points = upper;
    for (std::size_t i = 0; i < upper.size(); ++i) series.band.emplace_back(lower[i].y, upper[i].y);
    chart.series.push_back(std::move(series));
    below = std::move(top);
  }
  return TenantFigure{chart.title,
                      "each band is one tenant's busy GPUs, stacked in order of GPU-time "
                      "(largest at the bottom); averaged over equal time buckets",
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
  std::size_t drawn = 0;
  for (const auto& run : runs) {
    if (drawn == max_runs) break;
    if (auto figure = stacked_usage(run)) {
      out.push_back(std::move(*figure));
      ++drawn;
    }
  }
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
