#include "schedlab/report.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report_classes.hpp"
#include "report_gantt.hpp"
#include "report_inputs.hpp"
#include "report_tenants.hpp"
#include "report_window.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/metric_catalog.hpp"
#include "schedlab/output.hpp"
#include "schedlab/report_svg.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using namespace schedlab::report;

namespace {

constexpr std::size_t kMaxSeriesPoints = 400;
constexpr std::size_t kMaxCdfPoints = 300;
constexpr std::size_t kMaxGanttRuns = 8;

// ---- chart builders ------------------------------------------------------------------------

struct Figure {
  std::string title;
  std::string caption;  // one line under the title: what is shown, direction
  std::string svg;
};

std::string figure_html(const Figure& f) {
  return fmt::format("<figure class=\"card\"><h3>{}</h3><p class=\"caption\">{}</p>\n{}</figure>\n",
                     markup_escape(f.title), markup_escape(f.caption), f.svg);
}

std::vector<Point> downsample(const std::vector<SeriesRow>& rows, double unit_s,
                              double (*value)(const SeriesRow&)) {
  std::vector<Point> points;
  const std::size_t bucket =
      std::max<std::size_t>(1, (rows.size() + kMaxSeriesPoints - 1) / kMaxSeriesPoints);
  for (std::size_t begin = 0; begin < rows.size(); begin += bucket) {
    const std::size_t end = std::min(rows.size(), begin + bucket);
    double sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += value(rows[i]);
    points.push_back({rows[begin].time_s / unit_s, sum / static_cast<double>(end - begin)});
  }
  return points;
}

// The rows of a run inside the busy window [from, to].
std::vector<SeriesRow> rows_within(const std::vector<SeriesRow>& rows,
                                   const std::pair<double, double>& window) {
  std::vector<SeriesRow> out;
  for (const auto& row : rows)
    if (row.time_s >= window.first && row.time_s <= window.second) out.push_back(row);
  return out;
}

// The busy window of the runs with a time series (report_window.hpp); runs that are never busy
// nor queue anything are drawn whole. nullopt without a time series.
std::optional<std::pair<double, double>> runs_busy_window(const std::vector<RunData>& runs) {
  std::vector<const std::vector<SeriesRow>*> series;
  double first = std::numeric_limits<double>::infinity(), last = -first;
  for (const auto& r : runs)
    if (r.has_series) {
      series.push_back(&r.series);
      first = std::min(first, r.series.front().time_s);
      last = std::max(last, r.series.back().time_s);
    }
  if (series.empty()) return std::nullopt;
  return busy_window(series).value_or(std::pair{first, last});
}

std::vector<Figure> over_time_figures(const std::vector<RunData>& runs) {
  const auto window = runs_busy_window(runs);
  if (!window) return {};
  const DurationUnit unit = duration_unit(window->second - window->first);
  LineChart util;
  util.title = "GPU utilization over time";
  util.x.label = fmt::format("simulated time ({})", unit.name);
  util.x.include_zero = false;
  util.x.min = window->first / unit.seconds;
  util.x.max = window->second / unit.seconds;
  util.y.label = "busy GPUs (% of cluster)";
  util.y.max = 100;
  LineChart queue;
  queue.title = "Queue length over time";
  queue.x = util.x;
  queue.y.label = "queued jobs (count)";
  for (const auto& r : runs) {
    if (!r.has_series) continue;
    util.series.push_back({r.label,
                           r.color,
                           downsample(rows_within(r.series, *window), unit.seconds,
                                      [](const SeriesRow& row) {
                                        const double total = row.busy_gpus + row.idle_gpus;
                                        return total > 0 ? 100.0 * row.busy_gpus / total : 0.0;
                                      }),
                           {},
                           false});
    queue.series.push_back({r.label,
                            r.color,
                            downsample(rows_within(r.series, *window), unit.seconds,
                                       [](const SeriesRow& row) { return row.queued_jobs; }),
                            {},
                            false});
  }
  const std::string bucket_note = fmt::format(
      "averaged over equal time buckets; the busy window, {} to {} {} (from the first to the end "
      "of the last time series row in which a run has a busy GPU or a queued job)",
      format_value(window->first / unit.seconds, 4), format_value(window->second / unit.seconds, 4),
      unit.name);
  return {{util.title, "share of GPUs running jobs; higher is better; " + bucket_note,
           render_line_chart(util)},
          {queue.title, "jobs waiting to start; lower is better; " + bucket_note,
           render_line_chart(queue)}};
}

// Duration ticks for log axes, in order of priority (where labels would collide the later
// tick is dropped): the unit boundaries 1 s, 1 min, 1 h, 1 d first, then 10 s, 10 min, 10 h,
// 10 d, 100 d, 1000 d.
std::vector<std::pair<double, std::string>> duration_ticks() {
  return {{1, "1 s"},         {60, "1 min"},       {3600, "1 h"},   {86400, "1 d"},
          {10, "10 s"},       {600, "10 min"},     {36000, "10 h"}, {864000, "10 d"},
          {8640000, "100 d"}, {86400000, "1000 d"}};
}

std::vector<Point> cdf_points(const std::vector<double>& sorted_s) {
  std::vector<Point> points;
  const std::size_t n = sorted_s.size();
  if (n == 0) return points;
  constexpr double kFloor = 1.0;  // log axis: values under 1 s are drawn at 1 s
  points.push_back({std::max(kFloor, sorted_s.front()), 0.0});
  const std::size_t samples = std::min(n, kMaxCdfPoints);
  for (std::size_t k = 0; k < samples; ++k) {
    const std::size_t i = samples == 1 ? n - 1 : (k * (n - 1) + (samples - 1) / 2) / (samples - 1);
    const double x = std::max(kFloor, sorted_s[i]);
    // Last index holding this value, so the step reaches its full height.
    const std::size_t last = static_cast<std::size_t>(
        std::upper_bound(sorted_s.begin(), sorted_s.end(), sorted_s[i]) - sorted_s.begin());
    const Point p{x, static_cast<double>(last) / static_cast<double>(n)};
    if (!points.empty() && points.back().x == p.x && points.back().y == p.y) continue;
    points.push_back(p);
  }
  return points;
}

std::vector<Figure> cdf_figures(const std::vector<RunData>& runs) {
  if (std::none_of(runs.begin(), runs.end(), [](const RunData& r) { return r.has_jobs; }))
    return {};
  std::vector<Figure> out;
  const std::array<std::pair<const char*, const char*>, 2> kinds = {
      std::pair{"Wait time, cumulative distribution", "wait before first start"},
      std::pair{"Job completion time, cumulative distribution", "submit to finish (JCT)"}};
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    LineChart chart;
    chart.title = kinds[k].first;
    chart.x.label = fmt::format("{} (time, log scale; under 1 s drawn at 1 s)", kinds[k].second);
    chart.x.scale = Scale::kLog10;
    chart.x.ticks = duration_ticks();
    chart.y.label = "share of jobs (%)";
    chart.y.max = 100;
    for (const auto& r : runs) {
      if (!r.has_jobs) continue;
      auto points = cdf_points(k == 0 ? r.waits_s : r.jcts_s);
      for (auto& p : points) p.y *= 100.0;
      if (!points.empty()) chart.series.push_back({r.label, r.color, std::move(points), {}, false});
    }
    if (chart.series.empty()) continue;
    out.push_back({chart.title,
                   "share of jobs at or below each value; curves further left are better",
                   render_line_chart(chart)});
  }
  return out;
}

// A metric of a run: the across-seed mean (sweeps) or the summary value.
std::optional<double> metric_of(const RunData& r, const std::string& key) {
  if (r.group) {
    const auto it = r.group->stats.find(key);
    if (it == r.group->stats.end()) return std::nullopt;
    return it->second.mean;
  }
  return numeric_at(r.summary, key);
}

double ci_of(const RunData& r, const std::string& key) {
  if (!r.group) return 0.0;
  const auto it = r.group->stats.find(key);
  return it == r.group->stats.end() || it->second.n < 2 ? 0.0 : it->second.ci95;
}

enum class Kind { kDuration, kPercent, kRatio, kCount, kEnergy, kGpuHours };

struct MetricView {
  std::string key;
  std::string title;
  Kind kind;
  std::string better;  // "lower is better" / "higher is better"
  std::string axis;    // value axis name, the unit is appended
};

// How values of a catalog unit are drawn: fractions as percentages, seconds in the unit that
// suits their size.
Kind kind_of_unit(std::string_view unit) {
  if (unit == "s") return Kind::kDuration;
  if (unit == "fraction") return Kind::kPercent;
  if (unit == "kWh") return Kind::kEnergy;
  if (unit == "GPU-h") return Kind::kGpuHours;
  if (unit == "ratio") return Kind::kRatio;
  return Kind::kCount;
}

// A chart of one catalog metric: titled by its label (plus `title_suffix`), judged by its
// direction.
MetricView view_of(const std::string& key, const std::string& title_suffix = "") {
  const MetricInfo& metric = catalog_metric(key);
  std::string title(metric.label);
  if (!title.empty())
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  return {key, title + title_suffix, kind_of_unit(metric.unit), direction_text(metric.direction),
          std::string(metric.label)};
}

std::string better_text(const std::string& key) {
  return direction_text(catalog_metric(key).direction);
}

// Scale and unit text for values of a kind, given their maximum.
std::pair<double, std::string> kind_unit(Kind kind, double max_value) {
  switch (kind) {
    case Kind::kDuration: {
      const DurationUnit u = duration_unit(max_value);
      return {u.seconds, u.name};
    }
    case Kind::kPercent: return {0.01, "%"};
    case Kind::kRatio: return {1, "ratio"};
    case Kind::kCount: return {1, "count"};
    case Kind::kEnergy: return {1, "kWh"};
    case Kind::kGpuHours: return {1, "GPU-hours"};
  }
  return {1, ""};
}

std::string unit_suffix(const std::string& unit) {
  if (unit == "%") return "%";
  if (unit == "ratio" || unit == "count") return "";
  return " " + unit;
}

// Bar values and totals: format_value plus the unit ("11.3 h", "17.2%", "88.7k kWh").
std::function<std::string(double)> value_text_with(const std::string& unit) {
  return [suffix = unit_suffix(unit)](double v) { return format_value(v) + suffix; };
}

// The keys whose values pick the unit of `view`: statistics of one duration share a unit
// ("wait_s.mean" and "wait_s.p95" both take the unit of the larger), anything else its own.
std::vector<std::string> unit_keys(const MetricView& view) {
  const std::size_t dot = view.key.rfind('.');
  if (view.kind != Kind::kDuration || dot == std::string::npos) return {view.key};
  const std::string base = view.key.substr(0, dot);
  std::vector<std::string> keys = {base + ".mean", base + ".p95"};
  add_unique(keys, view.key);
  return keys;
}

// The runs that have every key (numeric), and a caption note naming the others: a run without
// a value is left out of a chart, never drawn as 0.
std::pair<std::vector<RunData>, std::string> runs_having(const std::vector<RunData>& runs,
                                                         const std::vector<std::string>& keys) {
  std::vector<RunData> having;
  std::string missing;
  for (const auto& r : runs) {
    const bool all = std::all_of(keys.begin(), keys.end(),
                                 [&](const std::string& k) { return metric_of(r, k).has_value(); });
    if (all)
      having.push_back(r);
    else
      missing += (missing.empty() ? "" : ", ") + r.label;
  }
  return {std::move(having), missing.empty() ? "" : "; no value for " + missing};
}

std::optional<Figure> single_bar_figure(const std::vector<RunData>& all_runs,
                                        const MetricView& view) {
  const auto [runs, missing_note] = runs_having(all_runs, {view.key});
  if (runs.empty()) return std::nullopt;
  BarChart chart;
  chart.title = view.title;
  BarSegment segment;
  double max_value = 0;
  for (const auto& r : runs)
    for (const auto& key : unit_keys(view))
      max_value = std::max(max_value, metric_of(r, key).value_or(0.0));
  const auto [scale, unit] = kind_unit(view.kind, max_value);
  for (const auto& r : runs) {
    chart.categories.push_back(r.label);
    chart.colors.push_back(r.color);
    segment.values.push_back(metric_of(r, view.key).value_or(0.0) / scale);
    chart.errors.push_back(ci_of(r, view.key) / scale);
  }
  chart.segments.push_back(std::move(segment));
  chart.axis_label = fmt::format("{} ({})", view.axis, unit);
  chart.value_text = value_text_with(unit);
  std::string caption = fmt::format("summary {}; {}", view.key, view.better);
  if (std::any_of(runs.begin(), runs.end(), [](const RunData& r) { return r.group != nullptr; }))
    caption += "; mean over seeds with 95% CI";
  caption += missing_note;
  return Figure{view.title, caption, render_bar_chart(chart)};
}

// Stacked bars of several fields (e.g. energy busy + idle), one bar per run: segment i is
// filled with segment_color(i) in every bar and in the key; values and totals carry `unit`.
std::optional<Figure> stacked_figure(
    const std::vector<RunData>& runs, const std::string& title, const std::string& caption,
    const std::string& axis, const std::string& unit,
    const std::vector<std::pair<std::string, std::vector<double>>>& segments) {
  if (segments.empty() || runs.empty()) return std::nullopt;
  BarChart chart;
  chart.title = title;
  chart.axis_label = fmt::format("{} ({})", axis, unit);
  chart.value_text = value_text_with(unit);
  for (const auto& r : runs) {
    chart.categories.push_back(r.label);
    chart.colors.push_back(r.color);
  }
  for (std::size_t i = 0; i < segments.size(); ++i)
    chart.segments.push_back({segments[i].first, segments[i].second, segment_color(i)});
  return Figure{title, caption, render_bar_chart(chart)};
}

std::vector<Figure> summary_figures(const std::vector<RunData>& runs) {
  std::vector<MetricView> views;
  for (const char* key : {"wait_s.mean", "wait_s.p95", "queued_s.mean", "jct_s.mean", "jct_s.p95",
                          "bounded_slowdown.mean", "utilization", "makespan_s"})
    views.push_back(view_of(key));
  std::vector<Figure> out;
  for (const auto& view : views)
    if (auto f = single_bar_figure(runs, view)) out.push_back(std::move(*f));
  return out;
}

std::vector<double> values_of(const std::vector<RunData>& runs, const std::string& key) {
  std::vector<double> out;
  out.reserve(runs.size());
  for (const auto& r : runs) out.push_back(metric_of(r, key).value_or(0.0));
  return out;
}

bool any_has(const std::vector<RunData>& runs, const std::string& key) {
  return std::any_of(runs.begin(), runs.end(),
                     [&](const RunData& r) { return metric_of(r, key).has_value(); });
}

// Sub-keys of a group (e.g. restarts.*) present in any run, in document order.
std::vector<std::string> sub_keys(const std::vector<RunData>& runs, const std::string& group) {
  std::vector<std::string> keys;
  for (const auto& r : runs)
    for (const auto& f : flatten_numeric(r.summary))
      if (f.key.starts_with(group + ".")) add_unique(keys, f.key);
  return keys;
}

std::vector<Figure> energy_figures(const std::vector<RunData>& runs) {
  std::vector<Figure> out;
  const bool suffix =
      std::any_of(runs.begin(), runs.end(), [](const RunData& r) { return r.group != nullptr; });
  const std::string mean_note = suffix ? "; mean over seeds" : "";
  if (any_has(runs, "energy_kwh.gpu_busy") && any_has(runs, "energy_kwh.gpu_idle")) {
    const auto [shown, missing] = runs_having(runs, {"energy_kwh.gpu_busy", "energy_kwh.gpu_idle"});
    if (auto f = stacked_figure(shown, "GPU energy",
                                "energy_kwh: GPUs running jobs + idle GPUs; " +
                                    better_text("energy_kwh.gpu_busy") + mean_note + missing,
                                "energy", "kWh",
                                {{"busy GPUs", values_of(shown, "energy_kwh.gpu_busy")},
                                 {"idle GPUs", values_of(shown, "energy_kwh.gpu_idle")}}))
      out.push_back(std::move(*f));
  } else if (any_has(runs, "energy_kwh.total")) {
    if (auto f = single_bar_figure(runs, view_of("energy_kwh.total"))) out.push_back(std::move(*f));
  }
  if (any_has(runs, "gpu_hours.idle")) {
    const auto [shown, missing] =
        runs_having(runs, {"gpu_hours.idle", "gpu_hours.idle_while_jobs_wait"});
    std::vector<double> waiting = values_of(shown, "gpu_hours.idle_while_jobs_wait");
    std::vector<double> idle = values_of(shown, "gpu_hours.idle");
    std::vector<double> rest;
    for (std::size_t i = 0; i < idle.size(); ++i)
      rest.push_back(std::max(0.0, idle[i] - waiting[i]));
    if (auto f = stacked_figure(shown, "Idle GPU-hours",
                                "gpu_hours.idle, split by whether jobs were waiting meanwhile; " +
                                    better_text("gpu_hours.idle") + mean_note + missing,
                                "idle capacity", "GPU-hours",
                                {{"idle while jobs wait", waiting}, {"idle, queue empty", rest}}))
      out.push_back(std::move(*f));
  }
  return out;
}

std::vector<Figure> restart_figures(const std::vector<RunData>& runs) {
  std::vector<Figure> out;
  std::vector<std::pair<std::string, std::vector<double>>> segments;
  for (const auto& key : sub_keys(runs, "restarts")) {
    if (key == "restarts.total") continue;
    std::string label = key.substr(9);
    std::replace(label.begin(), label.end(), '_', ' ');
    segments.emplace_back(label, values_of(runs, key));
  }
  bool any_restart = false;
  for (const auto& [label, values] : segments)
    for (const double v : values) any_restart = any_restart || v > 0;
  if (!segments.empty()) {
    if (auto f = stacked_figure(runs, "Restarts",
                                any_restart
                                    ? "restarts by cause (count); " + better_text("restarts.total")
                                    : "restarts by cause (count); none in these runs",
                                "restarts", "count", segments))
      out.push_back(std::move(*f));
  } else if (any_has(runs, "restarts.total")) {
    if (auto f = single_bar_figure(runs, view_of("restarts.total"))) out.push_back(std::move(*f));
  }
  if (any_has(runs, "gpu_hours.lost")) {
    if (auto f = single_bar_figure(runs, view_of("gpu_hours.lost"))) out.push_back(std::move(*f));
  }
  return out;
}

std::vector<Figure> sweep_figures(const SweepData& sweep,
                                  const std::map<std::string, std::string>& colors) {
  std::vector<MetricView> views;
  for (const char* key :
       {"wait_s.mean", "wait_s.p95", "queued_s.mean", "jct_s.mean", "bounded_slowdown.mean",
        "utilization", "gpu_hours.idle_while_jobs_wait", "energy_kwh.total"})
    views.push_back(view_of(key, " vs load"));
  std::vector<Figure> out;
  for (const auto& trace : sweep.traces) {
    for (const auto& cluster : sweep.clusters) {
      const std::string where =
          fmt::format("{} on {}", fs::path(trace).filename().string(), cluster);
      for (const auto& view : views) {
        double max_value = 0;
        bool any = false;
        for (const auto& g : sweep.groups) {
          if (g.definition["trace"] != trace || g.definition["cluster"] != cluster) continue;
          if (!g.stats.contains(view.key)) continue;
          any = true;
          for (const auto& key : unit_keys(view)) {
            const auto it = g.stats.find(key);
            if (it != g.stats.end())
              max_value = std::max(max_value, it->second.mean + it->second.ci95);
          }
        }
        if (!any) continue;
        const auto [scale, unit] = kind_unit(view.kind, max_value);
        LineChart chart;
        chart.title = view.title;
        chart.x.label = "load scale (x the trace's arrival rate)";
        chart.x.include_zero = false;
        chart.y.label = fmt::format("{} ({})", view.axis, unit);
        if (view.kind == Kind::kPercent) chart.y.max = 100;
        for (const auto& variant : sweep.variants) {
          LineSeries s;
          s.label = variant;
          s.color = colors.at(variant);
          s.markers = true;
          bool has_band = false;
          for (const auto& g : sweep.groups) {
            if (g.definition["variant"] != variant || g.definition["trace"] != trace ||
                g.definition["cluster"] != cluster)
              continue;
            const auto it = g.stats.find(view.key);
            if (it == g.stats.end()) continue;
            const double mean = it->second.mean / scale;
            const double ci = it->second.n >= 2 ? it->second.ci95 / scale : 0.0;
            has_band = has_band || it->second.n >= 2;
            s.points.push_back({g.definition["load_scale"].get<double>(), mean});
            s.band.emplace_back(mean - ci, mean + ci);
          }
          if (s.points.empty()) continue;
          // Groups appear in cell order; the x axis needs ascending load.
          std::vector<std::size_t> order(s.points.size());
          for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
          std::stable_sort(order.begin(), order.end(), [&s](std::size_t a, std::size_t b) {
            return s.points[a].x < s.points[b].x;
          });
          LineSeries sorted = s;
          for (std::size_t i = 0; i < order.size(); ++i) {
            sorted.points[i] = s.points[order[i]];
            sorted.band[i] = s.band[order[i]];
          }
          if (!has_band) sorted.band.clear();
          chart.series.push_back(std::move(sorted));
        }
        if (chart.series.empty()) continue;
        const std::size_t seeds = sweep.seeds.size();
        const std::string band_note = seeds >= 2
                                          ? fmt::format("mean over {} seeds, band: 95% CI", seeds)
                                          : "one seed, no confidence band";
        out.push_back({fmt::format("{} — {}", view.title, where),
                       fmt::format("{}; {}", view.better, band_note), render_line_chart(chart)});
      }
    }
  }
  return out;
}

std::string metrics_table(const std::vector<RunData>& runs) {
  std::vector<std::string> keys;
  for (const auto& r : runs)
    for (const auto& f : flatten_numeric(r.summary)) add_unique(keys, f.key);
  std::string out = "<table class=\"metrics\"><thead><tr><th>metric</th>";
  for (const auto& r : runs)
    out += fmt::format("<th style=\"color:{}\">{}</th>", r.color, markup_escape(r.label));
  out += "</tr></thead><tbody>\n";
  for (const auto& key : keys) {
    out += fmt::format("<tr><td>{}</td>", markup_escape(key));
    for (const auto& r : runs) {
      const auto v = metric_of(r, key);
      std::string text = v ? format_number(round_to(*v, 6)) : "-";
      const double ci = ci_of(r, key);
      if (v && ci > 0) text += " \u00b1 " + format_value(ci);
      out += fmt::format("<td>{}</td>", markup_escape(text));
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

// The report page's CSS around the charts' rules (report::kChartStyle).
constexpr const char* kStyleHead = R"CSS(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:24px auto;max-width:1320px;padding:0 16px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 6px} h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:14px;margin:0 0 2px} .caption{font-size:12px;color:#555;margin:0 0 6px}
.meta{font-size:13px;color:#444;margin:2px 0} .note{font-size:12px;color:#8a4b00}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:14px}
.card{margin:0;border:1px solid #e3e3e3;border-radius:6px;padding:10px 12px;background:#fff}
)CSS";
constexpr const char* kStyleTail =
    R"CSS(table.metrics{border-collapse:collapse;font-size:12px} table.metrics th,table.metrics td{border:1px solid #e3e3e3;padding:3px 8px;text-align:right}
table.metrics td:first-child,table.metrics th:first-child{text-align:left;font-family:ui-monospace,monospace}
)CSS";

// Runs in the browser after the page is laid out: marks each chart that has drawn data and
// records on <body> the chart counts and the number of pairs of tick labels (within one chart)
// whose rendered boxes overlap (read by the headless-browser test).
constexpr const char* kRenderCheck = R"JS(
(function () {
  var charts = document.querySelectorAll('svg.chart'), rendered = 0, overlaps = 0;
  for (var i = 0; i < charts.length; i++) {
    var svg = charts[i], box = svg.getBoundingClientRect(), marks = svg.querySelectorAll('.mark'), drawn = 0;
    for (var k = 0; k < marks.length; k++) {
      var b = marks[k].getBBox();
      if (b.width > 0 || b.height > 0) drawn++;
    }
    if (box.width > 0 && box.height > 0 && drawn > 0) { rendered++; svg.setAttribute('data-rendered', 'yes'); }
    var ticks = svg.querySelectorAll('.tick'), boxes = [];
    for (var t = 0; t < ticks.length; t++) boxes.push(ticks[t].getBBox());
    for (var p = 0; p < boxes.length; p++)
      for (var q = p + 1; q < boxes.length; q++) {
        var a = boxes[p], c = boxes[q];
        if (a.x < c.x + c.width && c.x < a.x + a.width && a.y < c.y + c.height && c.y < a.y + a.height) overlaps++;
      }
  }
  document.body.setAttribute('data-charts-total', String(charts.length));
  document.body.setAttribute('data-charts-rendered', String(rendered));
  document.body.setAttribute('data-tick-overlaps', String(overlaps));
})();
)JS";

// One Gantt chart per run with attempts.csv (the first kMaxGanttRuns), all over one window:
// --from/--to, else the busiest 24 h of those runs together.
std::string gantt_section(const std::vector<RunData>& runs, const ReportOptions& options,
                          std::vector<std::string>& notes) {
  std::vector<const RunData*> drawn;
  for (const auto& r : runs)
    if (r.attempts) drawn.push_back(&r);
  if (drawn.empty()) return "";
  if (drawn.size() > kMaxGanttRuns) {
    notes.push_back(fmt::format("Gantt charts: the first {} of the {} runs with attempts.csv",
                                kMaxGanttRuns, drawn.size()));
    drawn.resize(kMaxGanttRuns);
  }
  std::vector<const GanttRun*> attempts;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const RunData* r : drawn) {
    attempts.push_back(&*r->attempts);
    for (const auto& a : r->attempts->attempts) {
      lo = std::min(lo, a.start_s);
      hi = std::max(hi, a.end_s);
    }
  }
  if (!(hi >= lo)) {
    notes.emplace_back("Gantt charts: attempts.csv lists no attempt (no job started)");
    return "";
  }
  double from = lo, to = hi;
  std::string how;
  if (options.from_s || options.to_s) {
    from = options.from_s.value_or(lo);
    to = options.to_s.value_or(hi);
    if (!(to > from))
      throw ConfigError(fmt::format("--from/--to: the window is empty ({} s to {} s)",
                                    format_number(from), format_number(to)));
    how = "set by --from/--to";
  } else {
    const auto window = busiest_window(attempts, kDaySeconds);
    from = window->first;
    to = window->second;
    how = hi - lo <= kDaySeconds ? "the whole run: it spans no more than a day"
                                 : "the busiest 24 h: the most busy GPU time of the runs shown";
    if (!(to > from)) to = from + 1;
  }
  const GanttCategories categories = gantt_categories(attempts);
  const DurationUnit unit = duration_unit(to - from);
  const auto at = [](double t, const DurationUnit& u) {
    return format_value(t / u.seconds, 4) + " " + u.name;
  };
  const DurationUnit run_unit = duration_unit(hi - lo);
  std::string out = "<section id=\"gantt\"><h2>Schedule (Gantt)</h2>\n";
  out += fmt::format(
      "<p class=\"caption\">Window: simulated time {} to {} ({}); runs span {} to {}.</p>\n",
      at(from, unit), at(to, unit), how, at(lo, run_unit), at(hi, run_unit));
  for (const RunData* r : drawn) {
    const std::string title = "Schedule of " + r->label;
    const GanttChart chart = render_gantt(title, *r->attempts, categories, from, to);
    const double busy_h = busy_gpu_seconds({&*r->attempts}, from, to) / 3600.0;
    out +=
        figure_html({title,
                     fmt::format("{} attempt{} in the window, {} busy GPU-hours; {}", chart.bars,
                                 chart.bars == 1 ? "" : "s", format_value(busy_h), chart.caption),
                     chart.svg});
  }
  return out + "</section>\n";
}

// Stacked GPUs by tenant over time and waits by tenant, for runs that report tenants.
std::vector<Figure> tenant_section_figures(const std::vector<RunData>& runs) {
  std::vector<TenantRun> tenant_runs;
  const auto window = runs_busy_window(runs);  // the window of the over-time charts
  for (const auto& r : runs) {
    TenantRun t;
    t.label = r.label;
    t.color = r.color;
    t.cluster_gpus = numeric_at(r.summary, "cluster.gpus").value_or(0.0);
    if (r.summary.contains("tenants")) t.tenants = r.summary["tenants"];
    if (r.has_series && window) {
      t.names = r.tenant_names;
      t.gpus.assign(t.names.size(), {});
      for (std::size_t i = 0; i < r.series.size(); ++i) {
        if (r.series[i].time_s < window->first || r.series[i].time_s > window->second) continue;
        t.time_s.push_back(r.series[i].time_s);
        for (std::size_t k = 0; k < t.names.size(); ++k) t.gpus[k].push_back(r.tenant_gpus[k][i]);
      }
      if (t.time_s.empty()) t.names.clear();
    }
    tenant_runs.push_back(std::move(t));
  }
  std::vector<Figure> out;
  for (auto& f : tenant_figures(tenant_runs, kMaxGanttRuns))
    out.push_back({std::move(f.title), std::move(f.caption), std::move(f.svg)});
  return out;
}

std::string section(const std::string& title, const std::vector<Figure>& figures) {
  if (figures.empty()) return "";
  std::string out = fmt::format("<section><h2>{}</h2><div class=\"grid\">\n", markup_escape(title));
  for (const auto& f : figures) out += figure_html(f);
  return out + "</div></section>\n";
}

std::size_t count_charts(const std::string& html) {
  std::size_t count = 0;
  for (std::size_t at = html.find("<svg class=\"chart\""); at != std::string::npos;
       at = html.find("<svg class=\"chart\"", at + 1))
    ++count;
  return count;
}

}  // namespace

Report build_report(const std::vector<std::string>& inputs, const ReportOptions& options) {
  if (inputs.empty()) throw ConfigError("report: no results given");
  check_verdict_options(options.verdict);
  Report report;
  std::vector<RunData> runs;
  std::optional<SweepData> sweep;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!fs::exists(input, ec))
      throw ConfigError(fmt::format("{}: no such file or directory", input));
    if (const auto results = sweep_results_path(input)) {
      if (inputs.size() > 1)
        throw ConfigError(fmt::format(
            "{}: sweep results must be the only input (or give run outputs only)", input));
      sweep = read_sweep(*results, options);
      runs = sweep_runs(*sweep, report.notes);
      continue;
    }
    if (options.load_scale)
      throw ConfigError(
          fmt::format("--load applies to sweep results, but {} is a run output", input));
    fs::path dir = input;
    if (!fs::is_directory(dir, ec)) {
      dir = fs::path(input).parent_path();
      if (dir.empty()) dir = ".";
      const fs::path name = fs::path(input).filename();
      if (name != "summary.json" && name != "compare.json")
        throw ConfigError(fmt::format(
            "{}: expected a run output directory, its summary.json, a compare -o directory, or "
            "sweep results",
            input));
    }
    if (!fs::exists(dir / "summary.json", ec) && fs::exists(dir / "compare.json", ec)) {
      for (auto& run : read_compare_dir(dir, report.notes)) runs.push_back(std::move(run));
      continue;
    }
    if (!fs::exists(dir / "summary.json", ec)) {
      throw ConfigError(
          fmt::format("{}: directory holds no summary.json, results.jsonl or compare.json", input));
    }
    RunData run = read_run_dir(dir, input, report.notes);
    run.label = run.summary.contains("policy") && run.summary["policy"].is_string()
                    ? run.summary["policy"].get<std::string>()
                    : dir.filename().string();
    runs.push_back(std::move(run));
  }
  // Unique labels: a repeated policy name gets its directory added.
  std::map<std::string, int> seen;
  for (const auto& r : runs) ++seen[r.label];
  for (auto& r : runs)
    if (seen[r.label] > 1) r.label += " (" + fs::path(r.source).lexically_normal().string() + ")";
  std::map<std::string, std::string> colors;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].color = palette_color(i);
    colors[runs[i].label] = runs[i].color;
  }
  if (sweep)
    for (const auto& v : sweep->variants)
      if (!colors.contains(v)) colors[v] = palette_color(colors.size());

  // Job classes: the reference is checked before anything is drawn.
  std::vector<ClassRun> class_runs;
  class_runs.reserve(runs.size());
  for (auto& r : runs)
    class_runs.push_back({r.label,
                          r.summary.contains("policy") && r.summary["policy"].is_string()
                              ? r.summary["policy"].get<std::string>()
                              : "",
                          std::move(r.class_jobs)});
  const std::size_t reference = runs.empty() ? 0 : reference_run(class_runs, options.reference);
  if (const std::size_t unknown = resolve_work(class_runs); unknown > 0)
    report.notes.push_back(fmt::format(
        "job classes: {} job{} left out of the work classes: no run's jobs.csv shows {} work (each "
        "was interrupted, slowed or killed at its walltime in every run)",
        unknown, unknown == 1 ? "" : "s", unknown == 1 ? "its" : "their"));

  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html +=
      fmt::format("<title>{}</title>\n<style>{}{}{}{}</style>\n</head>\n<body>\n",
                  markup_escape(options.title), kStyleHead, kChartStyle, kStyleTail, kClassStyle);
  html += fmt::format("<header><h1>{}</h1>\n", markup_escape(options.title));
  if (sweep) {
    html += fmt::format(
        "<p class=\"meta\">Sweep results: {} ({} cells: {} variants x {} traces x {} clusters x {} "
        "load scales x {} seeds)</p>\n",
        markup_escape(sweep->results_path), sweep->rows.size(), sweep->variants.size(),
        sweep->traces.size(), sweep->clusters.size(), sweep->loads.size(), sweep->seeds.size());
    html += fmt::format(
        "<p class=\"meta\">Per-policy charts show {} on {} at load scale {} (over time and CDFs: "
        "the first successful "
        "seed; bars: mean over seeds with 95% CI).</p>\n",
        markup_escape(sweep->traces.front()), markup_escape(sweep->clusters.front()),
        format_number(sweep->shown_load));
  } else {
    for (const auto& r : runs) {
      std::string trace = summary_trace_path(r.summary);
      if (trace.empty()) trace = "?";
      const auto gpus = numeric_at(r.summary, "cluster.gpus");
      html += fmt::format("<p class=\"meta\"><b style=\"color:{}\">{}</b>: {} — trace {}{}</p>\n",
                          r.color, markup_escape(r.label), markup_escape(r.source),
                          markup_escape(trace),
                          gpus ? fmt::format(", {} GPUs", format_number(*gpus)) : "");
    }
  }
  html += "</header>\n";
  // Confidence intervals over few seeds are wide, over one there are none: say so.
  if (sweep)
    if (const std::string note = replicate_count_note(sweep->seeds.size()); !note.empty())
      report.notes.push_back(note);
  if (!runs.empty()) {
    const std::string verdict = verdict_table(class_runs, reference, options.verdict);
    if (!verdict.empty()) {
      const MetricInfo& metric = catalog_metric(options.verdict.metric);
      html += fmt::format(
          "<section id=\"verdict\"><h2>Verdict: who wins and who pays, against {}</h2>\n<p "
          "class=\"caption\">Change of {} ({}) per job class against {}: red where the class pays "
          "(worse by more than {}%), green where it gains (better by more than {}%); classes by "
          "GPUs and by work (the trace's duration), from each run's jobs.csv.</p>\n{}</section>\n",
          markup_escape(class_runs[reference].label), markup_escape(std::string(metric.label)),
          options.verdict.metric, markup_escape(class_runs[reference].label),
          format_number(options.verdict.threshold_pct),
          format_number(options.verdict.threshold_pct), verdict);
    }
  }
  html += section("Over time", over_time_figures(runs));
  html += gantt_section(runs, options, report.notes);
  html += section("Wait and completion time", cdf_figures(runs));
  html += section("Tenants", tenant_section_figures(runs));
  html += section("Summary metrics", summary_figures(runs));
  if (const std::string tables = class_tables(class_runs, options.verdict.bounds); !tables.empty())
    html +=
        "<section id=\"classes\"><h2>Job classes</h2>\n<p class=\"caption\">Each class's "
        "finished jobs in each run (from jobs.csv; classes as <code>compare --by</code> "
        "forms them).</p>\n" +
        tables + "</section>\n";
  html += section("Energy and idle capacity", energy_figures(runs));
  html += section("Restarts and lost work", restart_figures(runs));
  // One load scale gives one-point lines: those charts are left out, with a note.
  if (sweep && sweep->loads.size() >= 2)
    html += section("Metrics against load", sweep_figures(*sweep, colors));
  else if (sweep)
    report.notes.push_back(fmt::format(
        "the sweep has one load scale ({}): no metric-vs-load charts; the bars show each metric "
        "at that load",
        format_number(sweep->loads.front())));
  if (!runs.empty()) {
    html += "<section><h2>Every numeric metric</h2>\n";
    if (sweep)
      html +=
          "<p class=\"caption\">mean over seeds ± 95% CI half-width where there are several "
          "seeds</p>\n";
    html += metrics_table(runs) + "</section>\n";
  }
  if (!report.notes.empty()) {
    html += "<section><h2>Notes</h2>\n";
    for (const auto& note : report.notes)
      html += fmt::format("<p class=\"note\">{}</p>\n", markup_escape(note));
    html += "</section>\n";
  }
  html += fmt::format("<script>{}</script>\n</body>\n</html>\n", kRenderCheck);
  report.charts = count_charts(html);
  report.html = std::move(html);
  return report;
}

}  // namespace schedlab
