// render_gantt: the Gantt chart's SVG and caption, drawn in parts: the layout (rows, labels,
// plot area), the attempts in the window, the legend, the row bands and time axis, and then
// either one bar per attempt or, past kMaxBars or kMaxGpuRows, time buckets per row.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "report_gantt.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/report_svg.hpp"

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

std::string num(double v) {
  std::string text = fmt::format("{:.1f}", v);
  if (text == "-0.0") return "0";
  if (text.size() > 2 && text.ends_with(".0")) return text.substr(0, text.size() - 2);
  return text;
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

// Where the rows, their labels and the plot go.
struct GanttLayout {
  // A label over consecutive rows: a node (GPU rows) or an aggregate row.
  struct Group {
    std::size_t first_row, rows;
    std::string label;
  };
  std::size_t gpus = 0;
  std::size_t nodes = 0;
  // Node shape: equal nodes when the GPUs divide evenly; otherwise blocks of GPU ids of about
  // a node's size (the outputs do not record unequal node sizes).
  bool equal_nodes = true;
  std::size_t per_node = 0;
  std::size_t units = 0;  // nodes, or blocks of GPU ids
  bool aggregated = false;
  std::size_t units_per_row = 0;
  std::size_t rows = 0;
  std::vector<Group> groups;
  int row_px = 0;
  double left = 0;
  int buckets = 0;
  double plot_w = 0;
  double from_s = 0;
  double to_s = 0;
  double span = 0;
  double top = 0;  // set once the legend's height is known

  std::size_t row_of_gpu(std::size_t gpu) const {
    return aggregated ? gpu / per_node / units_per_row : gpu;
  }
  double row_capacity(std::size_t row) const {
    if (!aggregated) return 1;
    const std::size_t first = row * units_per_row * per_node;
    const std::size_t last = std::min(gpus, (row + 1) * units_per_row * per_node);
    return static_cast<double>(last - first);
  }
  double x_of(double t) const { return left + (t - from_s) / span * plot_w; }
  double y_of(std::size_t row) const { return top + static_cast<double>(row) * row_px; }
  double bottom() const { return top + static_cast<double>(rows) * row_px; }
  double height() const { return bottom() + kAxisHeight; }
};

GanttLayout lay_out(const GanttRun& run, double from_s, double to_s) {
  GanttLayout layout;
  const std::size_t gpus = std::max<std::size_t>(run.gpus, 1);
  const std::size_t nodes = std::clamp<std::size_t>(run.nodes, 1, gpus);
  layout.gpus = gpus;
  layout.nodes = nodes;
  const bool equal_nodes = gpus % nodes == 0;
  const std::size_t per_node = equal_nodes ? gpus / nodes : (gpus + nodes - 1) / nodes;
  const std::size_t units = (gpus + per_node - 1) / per_node;
  layout.equal_nodes = equal_nodes;
  layout.per_node = per_node;
  layout.units = units;
  layout.aggregated = gpus > kMaxGpuRows;
  const std::size_t units_per_row =
      layout.aggregated ? (units + kMaxAggregateRows - 1) / kMaxAggregateRows : 0;
  const std::size_t rows =
      layout.aggregated ? (units + units_per_row - 1) / units_per_row : gpus;  // GPU rows
  layout.units_per_row = units_per_row;
  layout.rows = rows;
  const auto unit_name = [&](std::size_t first, std::size_t last) {  // units, inclusive
    if (!equal_nodes) {
      const std::size_t g0 = first * per_node, g1 = std::min(gpus, (last + 1) * per_node) - 1;
      return fmt::format("GPUs {}-{}", g0, g1);
    }
    return first == last ? fmt::format("node {}", first) : fmt::format("nodes {}-{}", first, last);
  };
  // Row labels: one per node (individual rows) or per aggregate row.
  if (layout.aggregated) {
    for (std::size_t r = 0; r < rows; ++r)
      layout.groups.push_back(
          {r, 1, unit_name(r * units_per_row, std::min(units, (r + 1) * units_per_row) - 1)});
  } else {
    for (std::size_t u = 0; u < units; ++u)
      layout.groups.push_back(
          {u * per_node, std::min(gpus, (u + 1) * per_node) - u * per_node, unit_name(u, u)});
  }
  layout.row_px = std::clamp(static_cast<int>(kTargetPlotHeight / static_cast<double>(rows)),
                             kMinRowPx, kMaxRowPx);
  double label_width = 0;
  for (const auto& g : layout.groups)
    label_width = std::max(label_width, text_width(g.label, kRowLabelFont));
  layout.left = std::ceil(label_width + 14);
  layout.buckets = static_cast<int>((kWidth - layout.left - kRightPad) / kBucketPx);
  layout.plot_w = static_cast<double>(layout.buckets * kBucketPx);
  layout.from_s = from_s;
  layout.to_s = to_s;
  layout.span = to_s - from_s;
  return layout;
}

// The attempts in the window, and (GPU rows only) their bars: runs of consecutive GPU ids
// within one node.
struct AttemptsShown {
  struct Bar {
    const GanttAttempt* attempt;
    std::size_t first_row, rows;
  };
  std::vector<const GanttAttempt*> attempts;
  std::vector<Bar> bars;
  bool any_preempted = false;  // ending inside the window
  bool any_failed = false;
};

AttemptsShown attempts_in_window(const GanttRun& run, const GanttLayout& layout) {
  AttemptsShown shown;
  for (const auto& a : run.attempts) {
    const bool overlaps =
        a.end_s > layout.from_s || (a.end_s == a.start_s && a.start_s >= layout.from_s);
    if (!overlaps || a.start_s >= layout.to_s) continue;
    shown.attempts.push_back(&a);
    const bool ends_inside = a.end_s <= layout.to_s;
    shown.any_preempted = shown.any_preempted || (ends_inside && a.end == AttemptEnd::kPreempted);
    shown.any_failed = shown.any_failed || (ends_inside && a.end == AttemptEnd::kFailed);
    if (layout.aggregated) continue;
    for (std::uint32_t r = 0; r < a.range_count; ++r) {
      auto [lo, hi] = run.ranges[a.first_range + r];
      while (lo <= hi) {
        const std::uint32_t node_end = static_cast<std::uint32_t>(
            std::min<std::size_t>((lo / layout.per_node + 1) * layout.per_node - 1, hi));
        shown.bars.push_back({&a, lo, static_cast<std::size_t>(node_end - lo + 1)});
        lo = node_end + 1;
      }
    }
  }
  return shown;
}

// Legend: colours, end marks, shades.
Legend draw_legend(const GanttCategories& categories, const GanttLayout& layout,
                   const AttemptsShown& shown, bool bucketed) {
  LegendFlow legend(layout.left);
  legend.heading(categories.kind == "tenant" ? "tenant:" : "job size:");
  for (std::size_t k = 0; k < categories.labels.size(); ++k)
    legend.item(categories.labels[k],
                fmt::format("<rect class=\"key\" x=\"{{}}\" y=\"{{}}\" width=\"10\" height=\"10\" "
                            "fill=\"{}\"/>\n",
                            categories.colors[k]));
  if (shown.any_preempted || shown.any_failed) legend.heading("attempt ended:");
  const auto mark_swatch = [](const char* color) {
    return fmt::format(
        "<g transform=\"translate({{}},{{}})\"><rect x=\"0\" y=\"0\" width=\"10\" height=\"10\" "
        "fill=\"#cccccc\"/><rect x=\"8\" y=\"0\" width=\"2\" height=\"10\" fill=\"{}\"/></g>\n",
        color);
  };
  if (shown.any_preempted) legend.item("preempted", mark_swatch(kPreemptedColor));
  if (shown.any_failed) legend.item("failed", mark_swatch(kFailedColor));
  if (bucketed) {
    legend.heading(layout.aggregated ? "busy share of the row's GPUs:" : "busy share of the time:");
    for (std::size_t s = 0; s < kShadeOpacity.size(); ++s)
      legend.item(kShadeLabels[s],
                  fmt::format("<rect class=\"key\" x=\"{{}}\" y=\"{{}}\" width=\"10\" "
                              "height=\"10\" fill=\"{}\" fill-opacity=\"{}\"/>\n",
                              categories.colors.front(), kShadeOpacity[s]));
  }
  return legend.finish();
}
// Row backgrounds (alternating by node), row labels, separators, and the time axis.
std::string draw_axes(const GanttLayout& layout, const DurationUnit& unit) {
  const auto& groups = layout.groups;
  const bool aggregated = layout.aggregated;
  const int row_px = layout.row_px;
  const double left = layout.left, plot_w = layout.plot_w, top = layout.top;
  const double bottom = layout.bottom(), height = layout.height();
  const double from_s = layout.from_s, to_s = layout.to_s, span = layout.span;
  const auto y_of = [&](std::size_t row) { return layout.y_of(row); };
  std::string out;
  // Row backgrounds (alternating by node), row labels thinned to stay legible, separators.
  out += "<g class=\"axes\">\n";
  double last_label = -1e9;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const GanttLayout::Group& g = groups[i];
    const double y0 = y_of(g.first_row), h = static_cast<double>(g.rows) * row_px;
    if (!aggregated && i % 2 == 1)
      out +=
          fmt::format("<rect class=\"row-band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                      num(left), num(y0), num(plot_w), num(h));
    const double label_y = y0 + h / 2 + 3.5;
    if (label_y - last_label >= kMinLabelSpacing) {
      out +=
          fmt::format("<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                      num(left - 6), num(label_y), markup_escape(g.label));
      last_label = label_y;
      if (i > 0 && (aggregated || h < 6))
        out += fmt::format("<line class=\"separator\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                           num(left - 4), num(y0), num(left + plot_w), num(y0));
    }
    if (i > 0 && !aggregated && h >= 6)
      out += fmt::format("<line class=\"separator\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                         num(left - 4), num(y0), num(left + plot_w), num(y0));
  }
  // Time axis: ticks in the unit that suits the window's length, at absolute simulated time.
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

  return out;
}

// One bar per attempt and GPU row run, with a tooltip, a label where it fits and end marks.
std::string draw_bars(const GanttRun& run, const GanttCategories& categories,
                      const GanttLayout& layout, const AttemptsShown& shown,
                      const DurationUnit& unit) {
  const auto& bars = shown.bars;
  const int row_px = layout.row_px;
  const double left = layout.left, plot_w = layout.plot_w;
  const double from_s = layout.from_s, to_s = layout.to_s;
  const auto x_of = [&](double t) { return layout.x_of(t); };
  const auto y_of = [&](std::size_t row) { return layout.y_of(row); };
  const auto time_text = [&](double t) {
    return format_value(t / unit.seconds, 4) + " " + unit.name;
  };
  std::string out;
  out += row_px >= 8 ? "<g class=\"bars outlined\">\n" : "<g class=\"bars\">\n";
  std::string marks;
  for (const AttemptsShown::Bar& bar : bars) {
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
  return out;
}

// Per row and time bucket, the category that kept the row busiest, shaded by the busy share;
// equal neighbouring buckets merge into one stretch, one path per (category, shade).
std::string draw_cells(const GanttRun& run, const GanttCategories& categories,
                       const GanttLayout& layout, const AttemptsShown& shown) {
  const bool aggregated = layout.aggregated;
  const std::size_t rows = layout.rows, units_per_row = layout.units_per_row;
  const std::size_t per_node = layout.per_node;
  const int buckets = layout.buckets, row_px = layout.row_px;
  const double left = layout.left, from_s = layout.from_s, to_s = layout.to_s, span = layout.span;
  const auto y_of = [&](std::size_t row) { return layout.y_of(row); };
  std::string out;
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
  for (const GanttAttempt* a : shown.attempts) {
    const double s = std::max(a->start_s, from_s), e = std::min(a->end_s, to_s);
    row_gpus.clear();
    for (std::uint32_t r = 0; r < a->range_count; ++r) {
      const auto [lo, hi] = run.ranges[a->first_range + r];
      for (std::size_t g = lo; g <= hi;) {
        const std::size_t row = layout.row_of_gpu(g);
        std::size_t next = g + 1;
        if (aggregated) next = std::min<std::size_t>(hi + 1, (row + 1) * units_per_row * per_node);
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
    const double capacity = layout.row_capacity(row) * bucket_s;
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
        return {best, std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(share * 4 - 1e-6)),
                                              1, 4)};
      };
      const auto here = cell(b);
      std::size_t end = b + 1;
      while (end < n_buckets && cell(end) == here) ++end;
      if (here.second > 0) {
        const int x0 = static_cast<int>(left) + static_cast<int>(b) * kBucketPx;
        const int w = static_cast<int>(end - b) * kBucketPx;
        paths[{here.first, here.second}] += fmt::format("M{} {}h{}v{}h-{}z", x0, y0, w, row_px, w);
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
  return out;
}

// What the rows, colours and marks are, and how the drawing was aggregated.
std::string gantt_caption(const GanttLayout& layout, bool bucketed, const std::string& kind) {
  std::string rows_text;
  if (!layout.aggregated) {
    rows_text = layout.equal_nodes
                    ? fmt::format("one row per GPU ({} GPUs), grouped by node ({} nodes of {})",
                                  layout.gpus, layout.nodes, layout.per_node)
                    : fmt::format(
                          "one row per GPU ({} GPUs in {} nodes of unequal size), grouped "
                          "in blocks of {} GPU ids",
                          layout.gpus, layout.nodes, layout.per_node);
  } else {
    const std::string what = layout.equal_nodes
                                 ? (layout.units_per_row == 1 ? "node" : "group of {} nodes")
                                 : "block of {} GPU ids";
    rows_text =
        fmt::format("{} GPUs are too many for one row each: one row per {} ({} rows)", layout.gpus,
                    fmt::format(fmt::runtime(what), layout.equal_nodes
                                                        ? layout.units_per_row
                                                        : layout.units_per_row * layout.per_node),
                    layout.rows);
  }
  std::string drawn;
  if (bucketed) {
    const double bucket_s = layout.span / layout.buckets;
    const DurationUnit bucket_unit = duration_unit(bucket_s);
    drawn = fmt::format(
        "time in buckets of {} ({} units wide): each shows the {} that kept the row busiest, "
        "shaded by the row's busy share",
        format_value(bucket_s / bucket_unit.seconds) + " " + bucket_unit.name, kBucketPx, kind);
  } else
    drawn = fmt::format("colour: {}; hover a bar for the job", kind);
  return fmt::format(
      "{}; {}; a black end marks an attempt that was preempted, a red end "
      "one that failed",
      rows_text, drawn);
}

}  // namespace

GanttChart render_gantt(const std::string& title, const GanttRun& run,
                        const GanttCategories& categories, double from_s, double to_s) {
  GanttLayout layout = lay_out(run, from_s, to_s);
  const AttemptsShown shown = attempts_in_window(run, layout);
  GanttChart chart;
  chart.rows = layout.rows;
  chart.aggregated = layout.aggregated;
  chart.bars = shown.attempts.size();
  chart.bucketed = chart.aggregated || shown.bars.size() > kMaxBars;
  const Legend legend = draw_legend(categories, layout, shown, chart.bucketed);
  layout.top = std::ceil(kLegendTop + legend.height + 6);
  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" aria-label=\"{}\" "
      "preserveAspectRatio=\"xMinYMin meet\">\n",
      num(kWidth), num(layout.height()), markup_escape(title));
  out += "<g class=\"legend\">\n" + legend.svg + "</g>\n";
  // Ticks and tooltips share one time unit, the one that suits the window's length.
  const DurationUnit unit = duration_unit(layout.span);
  out += draw_axes(layout, unit);
  out += chart.bucketed ? draw_cells(run, categories, layout, shown)
                        : draw_bars(run, categories, layout, shown, unit);
  out += "</svg>\n";
  chart.svg = std::move(out);
  chart.caption = gantt_caption(layout, chart.bucketed, categories.kind);
  return chart;
}

}  // namespace schedlab::report
