#include "report_gantt.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/report_svg.hpp"
#include "schedlab/trace.hpp"

namespace schedlab::report {

namespace {

// Geometry (SVG user units). Bucketed drawings use whole units so that stretches print as
// integers and abut exactly.
constexpr double kWidth = 1240;
constexpr double kRightPad = 14;
constexpr double kLegendTop = 6;
constexpr double kLegendRow = 18;
constexpr double kLegendFont = 11;
constexpr double kRowLabelFont = 10;
constexpr double kMinLabelSpacing = 12;  // row labels closer than this are thinned out
constexpr double kTargetPlotHeight = 720;
constexpr int kMinRowPx = 3;
constexpr int kMaxRowPx = 16;
constexpr double kAxisHeight = 40;
constexpr double kEndMarkPx = 2;

// Tenant colours: report_svg.hpp's tenant_color (twelve, distinguishable from each other and
// from the end marks, black and red; "other" is grey), which the tenant charts share.
constexpr const char* kPreemptedColor = "#111111";
constexpr const char* kFailedColor = "#E0001B";
constexpr std::array<double, 4> kShadeOpacity = {0.3, 0.52, 0.76, 1.0};
constexpr std::array<const char*, 4> kShadeLabels = {"1-25%", "26-50%", "51-75%", "76-100%"};

// Job size classes: GPUs up to each bound.
constexpr std::array<std::uint32_t, 5> kSizeBounds = {1, 4, 8, 32, 0xFFFFFFFFu};
constexpr std::array<const char*, 5> kSizeLabels = {"1 GPU", "2-4 GPUs", "5-8 GPUs", "9-32 GPUs",
                                                    "33+ GPUs"};

std::string num(double v) {
  std::string text = fmt::format("{:.1f}", v);
  if (text == "-0.0") return "0";
  if (text.size() > 2 && text.ends_with(".0")) return text.substr(0, text.size() - 2);
  return text;
}

AttemptEnd parse_end(std::string_view text, const CsvReader& reader) {
  if (text == "completed") return AttemptEnd::kCompleted;
  if (text == "preempted") return AttemptEnd::kPreempted;
  if (text == "failed") return AttemptEnd::kFailed;
  if (text == "walltime") return AttemptEnd::kWalltime;
  throw ConfigError(fmt::format(
      "{}:{}: column 'end_reason': expected completed, preempted, failed or walltime, got '{}'",
      reader.file(), reader.line(), text));
}

const char* end_text(AttemptEnd end) {
  switch (end) {
    case AttemptEnd::kPreempted: return "preempted";
    case AttemptEnd::kFailed: return "failed";
    case AttemptEnd::kWalltime: return "killed at its walltime";
    case AttemptEnd::kCompleted: break;
  }
  return "completed";
}

bool is_light(const std::string& color) {
  if (color.size() != 7) return true;
  const auto channel = [&](std::size_t at) {
    return static_cast<double>(std::stoi(color.substr(at, 2), nullptr, 16)) / 255.0;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5) > 0.45;
}

// Busy GPUs as a step function: (time, change) sorted by time.
std::vector<std::pair<double, double>> busy_steps(const std::vector<const GanttRun*>& runs) {
  std::vector<std::pair<double, double>> steps;
  for (const GanttRun* run : runs) {
    for (const auto& a : run->attempts) {
      if (!(a.end_s > a.start_s)) continue;
      steps.emplace_back(a.start_s, static_cast<double>(a.gpus));
      steps.emplace_back(a.end_s, -static_cast<double>(a.gpus));
    }
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

// The integral of the busy GPUs from the first step: C(t), piecewise linear.
struct BusyIntegral {
  std::vector<double> times;   // distinct step times
  std::vector<double> before;  // integral up to times[i]
  std::vector<double> rate;    // busy GPUs from times[i] to times[i + 1]

  explicit BusyIntegral(const std::vector<std::pair<double, double>>& steps) {
    double level = 0, integral = 0;
    for (std::size_t i = 0; i < steps.size();) {
      const double t = steps[i].first;
      if (!times.empty()) integral += rate.back() * (t - times.back());
      for (; i < steps.size() && steps[i].first == t; ++i) level += steps[i].second;
      times.push_back(t);
      before.push_back(integral);
      rate.push_back(std::max(0.0, level));
    }
  }
  double operator()(double t) const {
    if (times.empty() || t <= times.front()) return 0.0;
    const auto it = std::upper_bound(times.begin(), times.end(), t);
    const std::size_t i = static_cast<std::size_t>(it - times.begin()) - 1;
    return before[i] + rate[i] * (t - times[i]);
  }
};

// "0-7 16 18-19"
std::string ranges_text(const GanttRun& run, const GanttAttempt& a) {
  std::string out;
  for (std::uint32_t r = 0; r < a.range_count; ++r) {
    const auto [lo, hi] = run.ranges[a.first_range + r];
    if (!out.empty()) out += ' ';
    out += lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
  }
  return out;
}

struct Legend {
  std::string svg;
  double height = 0;
};

// Legend items (a swatch drawn by `swatch` at (x, y), then its text) flowing left to right,
// wrapping at the right edge.
class LegendFlow {
 public:
  explicit LegendFlow(double left) : left_(left), x_(left) {}
  void heading(const std::string& text) { place(text, 0, "key-heading", {}); }
  void item(const std::string& text, const std::string& swatch_svg_format) {
    place(text, 14, "key-label", swatch_svg_format);
  }
  Legend finish() const { return {out_, x_ > left_ ? y_ + kLegendRow : y_}; }

 private:
  void place(const std::string& text, double swatch, const char* cls, const std::string& fmt_) {
    const double width = swatch + text_width(text, kLegendFont) + 14;
    if (x_ > left_ && x_ + width > kWidth - kRightPad) {
      x_ = left_;
      y_ += kLegendRow;
    }
    const double top = kLegendTop + y_;
    if (!fmt_.empty()) out_ += fmt::format(fmt::runtime(fmt_), num(x_), num(top + 2));
    out_ += fmt::format("<text class=\"{}\" x=\"{}\" y=\"{}\">{}</text>\n", cls, num(x_ + swatch),
                        num(top + 11), markup_escape(text));
    x_ += width;
  }
  double left_;
  double x_;
  double y_ = 0;
  std::string out_;
};

}  // namespace

GanttRun read_attempts(const std::string& path, std::size_t nodes, std::size_t gpus,
                       const std::unordered_map<std::string, std::string>& tenants) {
  const std::string text = read_file_bytes(path);
  CsvReader reader(text, path);
  std::vector<std::string_view> fields;
  if (!reader.next_row(fields))
    throw ConfigError(fmt::format("{}: empty file (expected a header row)", path));
  const CsvHeader header(fields, path, reader.line());
  const auto column = [&](const char* name) {
    const auto index = header.find(name);
    if (!index) throw ConfigError(fmt::format("{}:1: missing column '{}'", path, name));
    return *index;
  };
  const std::size_t c_job = column("job_id"), c_attempt = column("attempt"),
                    c_start = column("start_time"), c_end = column("end_time"),
                    c_gpus = column("gpus"), c_ids = column("allocated_resources"),
                    c_reason = column("end_reason");
  const std::size_t width = std::max({c_job, c_attempt, c_start, c_end, c_gpus, c_ids, c_reason});
  GanttRun run;
  run.nodes = nodes;
  run.gpus = gpus;
  std::unordered_map<std::string, std::uint32_t> job_index;
  const auto bad = [&](const char* name, std::string_view value, const char* expected) {
    return ConfigError(fmt::format("{}:{}: column '{}': expected {}, got '{}'", path, reader.line(),
                                   name, expected, value));
  };
  while (reader.next_row(fields)) {
    if (fields.size() <= width)
      throw ConfigError(fmt::format("{}:{}: expected {} fields, got {}", path, reader.line(),
                                    header.names().size(), fields.size()));
    GanttAttempt a;
    const std::string id(trim(fields[c_job]));
    const auto [it, fresh] = job_index.emplace(id, static_cast<std::uint32_t>(run.job_ids.size()));
    if (fresh) {
      run.job_ids.push_back(id);
      const auto tenant = tenants.find(id);
      run.tenants.push_back(tenant == tenants.end() ? "" : tenant->second);
    }
    a.job = it->second;
    const auto attempt = parse_int(fields[c_attempt]);
    if (!attempt || *attempt < 1) throw bad("attempt", fields[c_attempt], "an integer >= 1");
    a.attempt = static_cast<std::uint32_t>(*attempt);
    const auto start = parse_double(fields[c_start]);
    const auto end = parse_double(fields[c_end]);
    if (!start || !std::isfinite(*start)) throw bad("start_time", fields[c_start], "a number");
    if (!end || !std::isfinite(*end) || *end < *start)
      throw bad("end_time", fields[c_end], "a number >= start_time");
    a.start_s = *start;
    a.end_s = *end;
    const auto count = parse_int(fields[c_gpus]);
    if (!count || *count < 0) throw bad("gpus", fields[c_gpus], "an integer >= 0");
    a.gpus = static_cast<std::uint32_t>(*count);
    a.end = parse_end(trim(fields[c_reason]), reader);
    a.first_range = static_cast<std::uint32_t>(run.ranges.size());
    std::string_view ids = trim(fields[c_ids]);
    std::uint64_t listed = 0;
    while (!ids.empty()) {
      const std::size_t space = ids.find(' ');
      const std::string_view token = ids.substr(0, space);
      ids = space == std::string_view::npos ? std::string_view() : trim(ids.substr(space + 1));
      const std::size_t dash = token.find('-');
      const auto lo = parse_int(token.substr(0, dash));
      const auto hi = dash == std::string_view::npos ? lo : parse_int(token.substr(dash + 1));
      if (!lo || !hi || *lo < 0 || *hi < *lo)
        throw bad("allocated_resources", fields[c_ids], "GPU ids such as '0-7 16'");
      if (static_cast<std::uint64_t>(*hi) >= gpus)
        throw ConfigError(fmt::format("{}:{}: GPU id {} outside the cluster's {} GPUs", path,
                                      reader.line(), *hi, gpus));
      run.ranges.emplace_back(static_cast<std::uint32_t>(*lo), static_cast<std::uint32_t>(*hi));
      listed += static_cast<std::uint64_t>(*hi - *lo + 1);
    }
    a.range_count = static_cast<std::uint32_t>(run.ranges.size() - a.first_range);
    if (listed != a.gpus)
      throw ConfigError(fmt::format("{}:{}: {} GPUs, but allocated_resources lists {}", path,
                                    reader.line(), a.gpus, listed));
    run.attempts.push_back(a);
  }
  return run;
}

double busy_gpu_seconds(const std::vector<const GanttRun*>& runs, double from_s, double to_s) {
  double total = 0;
  for (const GanttRun* run : runs)
    for (const auto& a : run->attempts)
      total += std::max(0.0, std::min(a.end_s, to_s) - std::max(a.start_s, from_s)) * a.gpus;
  return total;
}

std::optional<std::pair<double, double>> busiest_window(const std::vector<const GanttRun*>& runs,
                                                        double length_s) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const GanttRun* run : runs)
    for (const auto& a : run->attempts) {
      lo = std::min(lo, a.start_s);
      hi = std::max(hi, a.end_s);
    }
  if (!(hi >= lo)) return std::nullopt;
  if (hi - lo <= length_s) return std::pair{lo, hi};
  const BusyIntegral integral(busy_steps(runs));
  // The busy time in [t, t + length) is piecewise linear in t, with corners where t or
  // t + length meets a step: its maximum is at one of those t.
  std::vector<double> candidates = {lo, hi - length_s};
  for (const double t : integral.times) {
    candidates.push_back(t);
    candidates.push_back(t - length_s);
  }
  std::sort(candidates.begin(), candidates.end());
  double best_t = lo, best = -1;
  for (const double t : candidates) {
    if (t < lo || t > hi - length_s) continue;
    const double busy = integral(t + length_s) - integral(t);
    if (busy > best + 1e-9 * std::max(1.0, best)) {
      best = busy;
      best_t = t;
    }
  }
  return std::pair{best_t, best_t + length_s};
}

std::uint16_t GanttCategories::of(const GanttRun& run, const GanttAttempt& a) const {
  if (kind == "tenant") {
    const auto it = tenant_index.find(run.tenants[a.job]);
    return it != tenant_index.end() ? it->second : other.value_or(0);
  }
  std::size_t k = 0;
  while (k + 1 < kSizeBounds.size() && a.gpus > kSizeBounds[k]) ++k;
  return static_cast<std::uint16_t>(k);
}

GanttCategories gantt_categories(const std::vector<const GanttRun*>& runs) {
  GanttCategories out;
  std::map<std::string, double> busy;  // tenant -> busy GPU-seconds
  bool any_tenant = false;
  for (const GanttRun* run : runs)
    for (const auto& a : run->attempts) {
      const std::string& tenant = run->tenants[a.job];
      any_tenant = any_tenant || !tenant.empty();
      busy[tenant] += (a.end_s - a.start_s) * a.gpus;
    }
  for (const GanttRun* run : runs)  // tenants of jobs that never ran still get a rank
    for (const auto& tenant : run->tenants) busy.emplace(tenant, 0.0);
  if (!any_tenant) {
    out.kind = "job size";
    for (std::size_t k = 0; k < kSizeLabels.size(); ++k) {
      out.labels.emplace_back(kSizeLabels[k]);
      out.colors.emplace_back(tenant_color(k));
    }
    return out;
  }
  out.kind = "tenant";
  std::vector<std::pair<std::string, double>> ranked(busy.begin(), busy.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const bool overflow = ranked.size() > kMaxTenantColors;
  for (std::size_t i = 0; i < ranked.size() && i < kMaxTenantColors; ++i) {
    out.tenant_index[ranked[i].first] = static_cast<std::uint16_t>(out.labels.size());
    out.labels.push_back(ranked[i].first.empty() ? "(no tenant)" : ranked[i].first);
    out.colors.emplace_back(tenant_color(i));
  }
  if (overflow) {
    out.other = static_cast<std::uint16_t>(out.labels.size());
    out.labels.push_back(fmt::format("{} other tenants", ranked.size() - kMaxTenantColors));
    out.colors.emplace_back(tenant_color(kTenantColorCount));
  }
  return out;
}

GanttChart render_gantt(const std::string& title, const GanttRun& run,
                        const GanttCategories& categories, double from_s, double to_s) {
  GanttChart chart;
  const std::size_t gpus = std::max<std::size_t>(run.gpus, 1);
  const std::size_t nodes = std::clamp<std::size_t>(run.nodes, 1, gpus);
  // Node shape: equal nodes when the GPUs divide evenly; otherwise blocks of GPU ids of about
  // a node's size (the outputs do not record unequal node sizes).
  const bool equal_nodes = gpus % nodes == 0;
  const std::size_t per_node = equal_nodes ? gpus / nodes : (gpus + nodes - 1) / nodes;
  const std::size_t units = (gpus + per_node - 1) / per_node;  // nodes, or blocks of GPU ids
  chart.aggregated = gpus > kMaxGpuRows;
  const std::size_t units_per_row =
      chart.aggregated ? (units + kMaxAggregateRows - 1) / kMaxAggregateRows : 0;
  const std::size_t rows =
      chart.aggregated ? (units + units_per_row - 1) / units_per_row : gpus;  // GPU rows
  chart.rows = rows;
  const auto row_of_gpu = [&](std::size_t gpu) {
    return chart.aggregated ? gpu / per_node / units_per_row : gpu;
  };
  const auto row_capacity = [&](std::size_t row) -> double {
    if (!chart.aggregated) return 1;
    const std::size_t first = row * units_per_row * per_node;
    const std::size_t last = std::min(gpus, (row + 1) * units_per_row * per_node);
    return static_cast<double>(last - first);
  };
  const auto unit_name = [&](std::size_t first, std::size_t last) {  // units, inclusive
    if (!equal_nodes) {
      const std::size_t g0 = first * per_node, g1 = std::min(gpus, (last + 1) * per_node) - 1;
      return fmt::format("GPUs {}-{}", g0, g1);
    }
    return first == last ? fmt::format("node {}", first) : fmt::format("nodes {}-{}", first, last);
  };
  // Row labels: one per node (individual rows) or per aggregate row.
  struct Group {
    std::size_t first_row, rows;
    std::string label;
  };
  std::vector<Group> groups;
  if (chart.aggregated) {
    for (std::size_t r = 0; r < rows; ++r)
      groups.push_back(
          {r, 1, unit_name(r * units_per_row, std::min(units, (r + 1) * units_per_row) - 1)});
  } else {
    for (std::size_t u = 0; u < units; ++u)
      groups.push_back(
          {u * per_node, std::min(gpus, (u + 1) * per_node) - u * per_node, unit_name(u, u)});
  }
  const int row_px = std::clamp(static_cast<int>(kTargetPlotHeight / static_cast<double>(rows)),
                                kMinRowPx, kMaxRowPx);
  double label_width = 0;
  for (const auto& g : groups)
    label_width = std::max(label_width, text_width(g.label, kRowLabelFont));
  const double left = std::ceil(label_width + 14);
  const int buckets = static_cast<int>((kWidth - left - kRightPad) / kBucketPx);
  const double plot_w = static_cast<double>(buckets * kBucketPx);
  const double span = to_s - from_s;
  const auto x_of = [&](double t) { return left + (t - from_s) / span * plot_w; };

  // Attempts in the window, and their bars: runs of consecutive GPU ids within one node.
  struct Bar {
    const GanttAttempt* attempt;
    std::size_t first_row, rows;
  };
  std::vector<const GanttAttempt*> shown;
  std::vector<Bar> bars;
  bool any_preempted = false, any_failed = false;
  for (const auto& a : run.attempts) {
    const bool overlaps = a.end_s > from_s || (a.end_s == a.start_s && a.start_s >= from_s);
    if (!overlaps || a.start_s >= to_s) continue;
    shown.push_back(&a);
    const bool ends_inside = a.end_s <= to_s;
    any_preempted = any_preempted || (ends_inside && a.end == AttemptEnd::kPreempted);
    any_failed = any_failed || (ends_inside && a.end == AttemptEnd::kFailed);
    if (chart.aggregated) continue;
    for (std::uint32_t r = 0; r < a.range_count; ++r) {
      auto [lo, hi] = run.ranges[a.first_range + r];
      while (lo <= hi) {
        const std::uint32_t node_end = static_cast<std::uint32_t>(
            std::min<std::size_t>((lo / per_node + 1) * per_node - 1, hi));
        bars.push_back({&a, lo, static_cast<std::size_t>(node_end - lo + 1)});
        lo = node_end + 1;
      }
    }
  }
  chart.bars = shown.size();
  chart.bucketed = chart.aggregated || bars.size() > kMaxBars;

  // Legend: colours, end marks, shades.
  LegendFlow legend(left);
  legend.heading(categories.kind == "tenant" ? "tenant:" : "job size:");
  for (std::size_t k = 0; k < categories.labels.size(); ++k)
    legend.item(categories.labels[k],
                fmt::format("<rect class=\"key\" x=\"{{}}\" y=\"{{}}\" width=\"10\" height=\"10\" "
                            "fill=\"{}\"/>\n",
                            categories.colors[k]));
  if (any_preempted || any_failed) legend.heading("attempt ended:");
  const auto mark_swatch = [](const char* color) {
    return fmt::format(
        "<g transform=\"translate({{}},{{}})\"><rect x=\"0\" y=\"0\" width=\"10\" height=\"10\" "
        "fill=\"#cccccc\"/><rect x=\"8\" y=\"0\" width=\"2\" height=\"10\" fill=\"{}\"/></g>\n",
        color);
  };
  if (any_preempted) legend.item("preempted", mark_swatch(kPreemptedColor));
  if (any_failed) legend.item("failed", mark_swatch(kFailedColor));
  if (chart.bucketed) {
    legend.heading(chart.aggregated ? "busy share of the row's GPUs:" : "busy share of the time:");
    for (std::size_t s = 0; s < kShadeOpacity.size(); ++s)
      legend.item(kShadeLabels[s],
                  fmt::format("<rect class=\"key\" x=\"{{}}\" y=\"{{}}\" width=\"10\" "
                              "height=\"10\" fill=\"{}\" fill-opacity=\"{}\"/>\n",
                              categories.colors.front(), kShadeOpacity[s]));
  }
  const Legend legend_drawn = legend.finish();
  const double top = std::ceil(kLegendTop + legend_drawn.height + 6);
  const double plot_h = static_cast<double>(rows) * row_px;
  const double bottom = top + plot_h;
  const double height = bottom + kAxisHeight;
  const auto y_of = [&](std::size_t row) { return top + static_cast<double>(row) * row_px; };

  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" aria-label=\"{}\" "
      "preserveAspectRatio=\"xMinYMin meet\">\n",
      num(kWidth), num(height), markup_escape(title));
  out += "<g class=\"legend\">\n" + legend_drawn.svg + "</g>\n";
  // Row backgrounds (alternating by node), row labels thinned to stay legible, separators.
  out += "<g class=\"axes\">\n";
  double last_label = -1e9;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    const double y0 = y_of(g.first_row), h = static_cast<double>(g.rows) * row_px;
    if (!chart.aggregated && i % 2 == 1)
      out +=
          fmt::format("<rect class=\"row-band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                      num(left), num(y0), num(plot_w), num(h));
    const double label_y = y0 + h / 2 + 3.5;
    if (label_y - last_label >= kMinLabelSpacing) {
      out +=
          fmt::format("<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                      num(left - 6), num(label_y), markup_escape(g.label));
      last_label = label_y;
      if (i > 0 && (chart.aggregated || h < 6))
        out += fmt::format("<line class=\"separator\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                           num(left - 4), num(y0), num(left + plot_w), num(y0));
    }
    if (i > 0 && !chart.aggregated && h >= 6)
      out += fmt::format("<line class=\"separator\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                         num(left - 4), num(y0), num(left + plot_w), num(y0));
  }
  // Time axis: ticks in the unit that suits the window's length, at absolute simulated time.
  const DurationUnit unit = duration_unit(span);
  const auto ticks =
      linear_ticks(from_s / unit.seconds, to_s / unit.seconds, left, left + plot_w, 8, true);
  for (const auto& [value, text] : ticks) {
    const double px = left + (value * unit.seconds - from_s) / span * plot_w;
    out += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n",
                       num(px), num(top), num(bottom + 4));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       num(px), num(bottom + 15), markup_escape(text));
  }
  out += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(left),
                     num(bottom), num(left + plot_w), num(bottom));
  out +=
      fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                  num(left + plot_w / 2), num(height - 8),
                  markup_escape(fmt::format("simulated time ({})", unit.name)));
  out += "</g>\n";

  const auto time_text = [&](double t) {
    return format_value(t / unit.seconds, 4) + " " + unit.name;
  };
  if (!chart.bucketed) {
    out += row_px >= 8 ? "<g class=\"bars outlined\">\n" : "<g class=\"bars\">\n";
    std::string marks;
    for (const Bar& bar : bars) {
      const GanttAttempt& a = *bar.attempt;
      // At least a unit wide, and within the plot.
      const double w =
          std::max(1.0, x_of(std::min(a.end_s, to_s)) - x_of(std::max(a.start_s, from_s)));
      const double x0 = std::min(x_of(std::max(a.start_s, from_s)), left + plot_w - w);
      const double y0 = y_of(bar.first_row), h = static_cast<double>(bar.rows) * row_px;
      const std::uint16_t cat = categories.of(run, a);
      const std::string& color = categories.colors[cat];
      const std::string& tenant = run.tenants[a.job];
      out += fmt::format(
          "<rect class=\"mark bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
          "<title>{}</title></rect>\n",
          num(x0), num(y0), num(w), num(h), color,
          markup_escape(fmt::format(
              "job {}, attempt {}{}: {} to {}, {} GPU{} ({}), {}", run.job_ids[a.job], a.attempt,
              tenant.empty() ? "" : ", tenant " + tenant, time_text(a.start_s), time_text(a.end_s),
              a.gpus, a.gpus == 1 ? "" : "s", ranges_text(run, a), end_text(a.end))));
      const std::string& id = run.job_ids[a.job];
      if (h >= 11 && w >= text_width(id, 9) + 6)
        out += fmt::format("<text class=\"bar-label\" x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n",
                           num(x0 + 3), num(y0 + h / 2 + 3.2),
                           is_light(color) ? "#222222" : "#ffffff", markup_escape(id));
      if ((a.end == AttemptEnd::kPreempted || a.end == AttemptEnd::kFailed) && a.end_s <= to_s)
        marks += fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                             a.end == AttemptEnd::kPreempted ? "end-preempted" : "end-failed",
                             num(x0 + w - std::min(kEndMarkPx, w)), num(y0),
                             num(std::min(kEndMarkPx, w)), num(h));
    }
    out += marks + "</g>\n";
  } else {
    // Busy GPU-seconds per row, bucket and category; end marks per row and bucket.
    const std::size_t n_buckets = static_cast<std::size_t>(buckets);
    const std::size_t n_cats = categories.labels.size();
    const double bucket_s = span / static_cast<double>(n_buckets);
    std::vector<float> busy(rows * n_buckets * n_cats, 0.0f);
    std::vector<std::uint8_t> ends(rows * n_buckets, 0);
    const auto bucket_of = [&](double t) {
      return std::min(n_buckets - 1,
                      static_cast<std::size_t>(std::max(0.0, std::floor((t - from_s) / bucket_s))));
    };
    std::vector<std::pair<std::size_t, double>> row_gpus;  // (row, GPUs of the attempt there)
    for (const GanttAttempt* a : shown) {
      const double s = std::max(a->start_s, from_s), e = std::min(a->end_s, to_s);
      row_gpus.clear();
      for (std::uint32_t r = 0; r < a->range_count; ++r) {
        const auto [lo, hi] = run.ranges[a->first_range + r];
        for (std::size_t g = lo; g <= hi;) {
          const std::size_t row = row_of_gpu(g);
          std::size_t next = g + 1;
          if (chart.aggregated)
            next = std::min<std::size_t>(hi + 1, (row + 1) * units_per_row * per_node);
          if (!row_gpus.empty() && row_gpus.back().first == row)
            row_gpus.back().second += static_cast<double>(next - g);
          else
            row_gpus.emplace_back(row, static_cast<double>(next - g));
          g = next;
        }
      }
      const std::uint16_t cat = categories.of(run, *a);
      const std::size_t b0 = bucket_of(s), b1 = bucket_of(e);
      for (const auto& [row, count] : row_gpus) {
        for (std::size_t b = b0; b <= b1 && e > s; ++b) {
          const double bs = from_s + static_cast<double>(b) * bucket_s;
          const double overlap = std::min(e, bs + bucket_s) - std::max(s, bs);
          if (overlap > 0)
            busy[(row * n_buckets + b) * n_cats + cat] += static_cast<float>(overlap * count);
        }
        if (a->end_s <= to_s && (a->end == AttemptEnd::kPreempted || a->end == AttemptEnd::kFailed))
          ends[row * n_buckets + bucket_of(a->end_s)] |= a->end == AttemptEnd::kPreempted ? 1 : 2;
      }
    }
    // Each row: per bucket the busiest category and the busy share's level; stretches of equal
    // (category, level) merge. One path per (category, level).
    std::map<std::pair<std::size_t, std::size_t>, std::string> paths;
    std::string preempted_path, failed_path;
    for (std::size_t row = 0; row < rows; ++row) {
      const double capacity = row_capacity(row) * bucket_s;
      const int y0 = static_cast<int>(y_of(row));
      std::size_t b = 0;
      while (b < n_buckets) {
        const auto cell = [&](std::size_t bucket) -> std::pair<std::size_t, std::size_t> {
          const float* v = &busy[(row * n_buckets + bucket) * n_cats];
          double total = 0;
          std::size_t best = 0;
          for (std::size_t k = 0; k < n_cats; ++k) {
            total += v[k];
            if (v[k] > v[best]) best = k;
          }
          if (total <= 1e-6 * capacity) return {0, 0};
          const double share = std::min(1.0, total / capacity);
          return {best, std::clamp<std::size_t>(
                            static_cast<std::size_t>(std::ceil(share * 4 - 1e-6)), 1, 4)};
        };
        const auto here = cell(b);
        std::size_t end = b + 1;
        while (end < n_buckets && cell(end) == here) ++end;
        if (here.second > 0) {
          const int x0 = static_cast<int>(left) + static_cast<int>(b) * kBucketPx;
          const int w = static_cast<int>(end - b) * kBucketPx;
          paths[{here.first, here.second}] +=
              fmt::format("M{} {}h{}v{}h-{}z", x0, y0, w, row_px, w);
        }
        b = end;
      }
      for (std::size_t k = 0; k < n_buckets; ++k) {
        const std::uint8_t flags = ends[row * n_buckets + k];
        if (flags == 0) continue;
        const int x = static_cast<int>(left) + static_cast<int>(k + 1) * kBucketPx - 1;
        if (flags & 1) preempted_path += fmt::format("M{} {}h1v{}h-1z", x, y0, row_px);
        if (flags & 2) failed_path += fmt::format("M{} {}h1v{}h-1z", x - 1, y0, row_px);
      }
    }
    out += "<g class=\"cells\">\n";
    for (const auto& [key, d] : paths)
      out += fmt::format(
          "<path class=\"mark cell\" fill=\"{}\" fill-opacity=\"{}\" d=\"{}\"><title>{}, {} "
          "busy</title></path>\n",
          categories.colors[key.first], kShadeOpacity[key.second - 1], d,
          markup_escape(categories.labels[key.first]), kShadeLabels[key.second - 1]);
    if (!preempted_path.empty())
      out += fmt::format("<path class=\"end-preempted\" d=\"{}\"/>\n", preempted_path);
    if (!failed_path.empty())
      out += fmt::format("<path class=\"end-failed\" d=\"{}\"/>\n", failed_path);
    out += "</g>\n";
  }
  out += "</svg>\n";
  chart.svg = std::move(out);

  // Caption: rows, colours, marks, aggregation.
  std::string rows_text;
  if (!chart.aggregated) {
    rows_text = equal_nodes
                    ? fmt::format("one row per GPU ({} GPUs), grouped by node ({} nodes of {})",
                                  gpus, nodes, per_node)
                    : fmt::format(
                          "one row per GPU ({} GPUs in {} nodes of unequal size), grouped "
                          "in blocks of {} GPU ids",
                          gpus, nodes, per_node);
  } else {
    const std::string what =
        equal_nodes ? (units_per_row == 1 ? "node" : "group of {} nodes") : "block of {} GPU ids";
    rows_text = fmt::format(
        "{} GPUs are too many for one row each: one row per {} ({} rows)", gpus,
        fmt::format(fmt::runtime(what), equal_nodes ? units_per_row : units_per_row * per_node),
        rows);
  }
  std::string drawn;
  if (chart.bucketed) {
    const double bucket_s = span / buckets;
    const DurationUnit bucket_unit = duration_unit(bucket_s);
    drawn = fmt::format(
        "time in buckets of {} ({} units wide): each shows the {} that kept the row busiest, "
        "shaded by the row's busy share",
        format_value(bucket_s / bucket_unit.seconds) + " " + bucket_unit.name, kBucketPx,
        categories.kind);
  } else
    drawn = fmt::format("colour: {}; hover a bar for the job", categories.kind);
  chart.caption = fmt::format(
      "{}; {}; a black end marks an attempt that was preempted, a red end "
      "one that failed",
      rows_text, drawn);
  return chart;
}

}  // namespace schedlab::report
