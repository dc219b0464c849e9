#include "schedlab/report_svg.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace schedlab::report {

const char* const kChartStyle = R"CSS(svg.chart{display:block;font-family:inherit}
svg .grid{stroke:#ececec;stroke-width:1} svg .axis{stroke:#888;stroke-width:1} svg .tickmark{stroke:#888}
svg .tick{font-size:10px;fill:#555} svg .axis-label{font-size:11px;fill:#333}
svg .line{fill:none;stroke-width:1.8;stroke-linejoin:round} svg .band{fill-opacity:.18;stroke:none}
svg .errorbar{fill:none;stroke-width:1.2} svg .legend-line{stroke-width:2.5} svg .dashed{stroke-dasharray:6 4}
svg .direct-label{font-size:11px;font-weight:600} svg .legend-label{font-size:11px;fill:#333}
svg .key-heading{font-size:11px;font-weight:600;fill:#333} svg .row-label{font-size:10px;fill:#444}
svg .row-band{fill:#f4f4f4} svg .separator{stroke:#c4c4c4;stroke-width:.6}
svg .outlined .bar{stroke:#fff;stroke-width:.6} svg .bar-label{font-size:9px;pointer-events:none}
svg .end-preempted{fill:#111111} svg .end-failed{fill:#E0001B} svg .category{font-size:11px;fill:#222}
svg .value{font-size:10.5px;fill:#222} svg .in-bar{font-size:10px} svg .key-label{font-size:10.5px;fill:#333}
)CSS";

namespace {

// Line chart geometry (SVG user units; the SVG scales to its container).
constexpr double kWidth = 600;
constexpr double kHeight = 320;
constexpr double kLeft = 66;
constexpr double kRight = 150;      // at most this much room for names at the line ends
constexpr double kRightPlain = 24;  // without them
constexpr double kTop = 14;
constexpr double kBottom = 46;
constexpr double kLabelFont = 11;
constexpr double kLabelSpacing = 13;
constexpr double kMaxLabelShift = 8;  // a name further from its line's end reads as a level
constexpr double kLegendRow = 16;
constexpr std::size_t kMaxLabelChars = 22;

std::string num(double v) {
  const std::string text = fmt::format("{:.1f}", v);
  return text == "-0.0" ? "0.0" : text;
}

std::string trim_zeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

std::string truncate_label(const std::string& label) {
  if (label.size() <= kMaxLabelChars) return label;
  return label.substr(0, kMaxLabelChars - 1) + "\u2026";
}

double nice_step(double range, int target) {
  if (!(range > 0)) return 1.0;
  const double raw = range / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalized = raw / magnitude;
  const double factor = normalized < 1.5 ? 1 : normalized < 3 ? 2 : normalized < 7 ? 5 : 10;
  return factor * magnitude;
}

// Resolved axis: data range to pixels.
struct Mapped {
  Scale scale = Scale::kLinear;
  double lo = 0, hi = 1;  // in data units
  double pixel_lo = 0, pixel_hi = 1;
  std::vector<std::pair<double, std::string>> ticks;

  double transform(double v) const { return scale == Scale::kLog10 ? std::log10(v) : v; }
  double operator()(double v) const {
    const double a = transform(lo), b = transform(hi);
    const double t = b == a ? 0.5 : (transform(v) - a) / (b - a);
    return pixel_lo + t * (pixel_hi - pixel_lo);
  }
};

// Keeps the ticks (in the given priority order) whose labels stay at least kMinTickGap clear
// of every label kept before them, and returns those in ascending order of value. Labels of a
// horizontal axis are centred on their tick; those of a vertical axis are one line high.
std::vector<std::pair<double, std::string>> thin_ticks(
    const Mapped& m, const std::vector<std::pair<double, std::string>>& ticks, bool horizontal) {
  struct Box {
    double lo, hi;
  };
  std::vector<Box> kept_boxes;
  std::vector<std::pair<double, std::string>> kept;
  for (const auto& tick : ticks) {
    const double at = m(tick.first);
    const double half = horizontal ? text_width(tick.second, kTickFontSize) / 2 : kTickFontSize / 2;
    const Box box{at - half, at + half};
    const bool clear = std::all_of(kept_boxes.begin(), kept_boxes.end(), [&](const Box& other) {
      return box.lo >= other.hi + kMinTickGap || other.lo >= box.hi + kMinTickGap;
    });
    if (!clear) continue;
    kept_boxes.push_back(box);
    kept.push_back(tick);
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return kept;
}

// Significant digits that tell ticks `step` apart, up to magnitude `max_abs` (at least 3).
int tick_digits(double max_abs, double step) {
  if (!(max_abs > 0) || !(step > 0)) return 3;
  const int needed = static_cast<int>(std::floor(std::log10(max_abs) + 1e-9) -
                                      std::floor(std::log10(step) + 1e-9)) +
                     1;
  return std::clamp(needed, 3, 15);
}

// Maps [data_lo, data_hi] (widened to nice bounds unless fixed by `spec`) onto
// [pixel_lo, pixel_hi] and picks its ticks, thinned so that no labels collide. `horizontal`:
// an x axis (labels side by side) rather than a y axis (labels stacked).
Mapped resolve_axis(const AxisSpec& spec, double data_lo, double data_hi, double pixel_lo,
                    double pixel_hi, int target_ticks, bool horizontal) {
  Mapped m;
  m.scale = spec.scale;
  m.pixel_lo = pixel_lo;
  m.pixel_hi = pixel_hi;
  if (!std::isfinite(data_lo) || !std::isfinite(data_hi))
    data_lo = data_hi = spec.scale == Scale::kLog10 ? 1 : 0;
  if (spec.scale == Scale::kLog10) {
    double lo = spec.min.value_or(std::pow(10.0, std::floor(std::log10(std::max(data_lo, 1e-12)))));
    double hi = spec.max.value_or(std::pow(10.0, std::ceil(std::log10(std::max(data_hi, 1e-12)))));
    if (hi <= lo) hi = lo * 10;
    m.lo = lo;
    m.hi = hi;
    std::vector<std::pair<double, std::string>> ticks;
    if (!spec.ticks.empty()) {
      for (const auto& t : spec.ticks)
        if (t.first >= lo * (1 - 1e-9) && t.first <= hi * (1 + 1e-9)) ticks.push_back(t);
    } else {
      for (double t = lo; t <= hi * (1 + 1e-9);) {
        ticks.emplace_back(t, format_value(t));
        t *= 10;
      }
    }
    m.ticks = thin_ticks(m, ticks, horizontal);
    return m;
  }
  double lo = spec.min.value_or(spec.include_zero ? std::min(0.0, data_lo) : data_lo);
  double hi = spec.max.value_or(spec.include_zero ? std::max(0.0, data_hi) : data_hi);
  if (hi <= lo) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo = spec.min ? lo : lo - (spec.include_zero && lo >= 0 ? 0 : pad);
    hi = hi + pad;
  }
  const double step = nice_step(hi - lo, target_ticks);
  if (!spec.min) lo = std::floor(lo / step + 1e-9) * step;
  if (!spec.max) hi = std::ceil(hi / step - 1e-9) * step;
  m.lo = lo;
  m.hi = hi;
  std::vector<std::pair<double, std::string>> ticks;
  if (!spec.ticks.empty()) {
    for (const auto& t : spec.ticks)
      if (t.first >= lo - 1e-9 * step && t.first <= hi + 1e-9 * step) ticks.push_back(t);
  } else {
    const double first = std::ceil(lo / step - 1e-9) * step;
    const int digits = tick_digits(std::max(std::abs(lo), std::abs(hi)), step);
    for (int i = 0; i < 100; ++i) {
      const double t = first + i * step;
      if (t > hi + 1e-9 * step) break;
      ticks.emplace_back(t, format_value(std::abs(t) < step * 1e-9 ? 0.0 : t, digits));
    }
  }
  m.ticks = thin_ticks(m, ticks, horizontal);
  return m;
}

// Spreads label positions (sorted ascending) so neighbours are at least `gap` apart, within
// [lo, hi] where possible.
void spread(std::vector<double>& ys, double gap, double lo, double hi) {
  for (std::size_t i = 0; i < ys.size(); ++i) {
    ys[i] = std::max(ys[i], lo);
    if (i > 0) ys[i] = std::max(ys[i], ys[i - 1] + gap);
  }
  if (!ys.empty() && ys.back() > hi) {
    ys.back() = hi;
    for (std::size_t i = ys.size() - 1; i-- > 0;) ys[i] = std::min(ys[i], ys[i + 1] - gap);
  }
}

// Whether dark text reads better than white on `color` ("#RRGGBB"; relative luminance).
bool is_light(const std::string& color) {
  if (color.size() != 7 || color[0] != '#' ||
      !std::all_of(color.begin() + 1, color.end(),
                   [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }))
    return false;
  const auto channel = [&](std::size_t at) {
    return static_cast<double>(std::stoi(color.substr(at, 2), nullptr, 16)) / 255.0;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5) > 0.5;
}

std::string svg_open(double width, double height, const std::string& title) {
  return fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" aria-label=\"{}\" "
      "preserveAspectRatio=\"xMinYMin meet\">\n",
      num(width), num(height), markup_escape(title));
}

}  // namespace

std::string format_value(double value, int digits) {
  digits = std::max(1, digits);
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
  // Round to the significant digits first, so that 999.96 reads "1k" rather than "1000".
  const double magnitude = std::floor(std::log10(std::abs(value)));
  const double unit = std::pow(10.0, magnitude - digits + 1);
  const double rounded = std::round(value / unit) * unit;
  const double a = std::abs(rounded);
  const auto [scale, suffix] = a >= 1e9   ? std::pair{1e9, "G"}
                               : a >= 1e6 ? std::pair{1e6, "M"}
                               : a >= 1e3 ? std::pair{1e3, "k"}
                                          : std::pair{1.0, ""};
  const double mantissa = rounded / scale;
  const int decimals = std::clamp(
      digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(mantissa)) + 1e-9)), 0, 15);
  return trim_zeros(fmt::format("{:.{}f}", mantissa, decimals)) + suffix;
}

double text_width(std::string_view text, double font_size) {
  double em = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) == 0x80) continue;  // UTF-8 continuation
    if (c == ' ') {
      em += 0.32;
    } else if (std::string_view(".,:;|!'il").find(c) != std::string_view::npos) {
      em += 0.28;
    } else if (c == 'm' || c == 'w' || c == 'M' || c == 'W') {
      em += 0.98;
    } else {
      em += 0.64;
    }
  }
  return em * font_size;
}

const std::string& palette_color(std::size_t index) {
  static const std::array<std::string, 8> kColors = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                     "#E69F00", "#56B4E9", "#666666", "#000000"};
  return kColors[index % kColors.size()];
}

const std::string& tenant_color(std::size_t rank) {
  static const std::array<std::string, kTenantColorCount + 1> kColors = {
      "#4E79A7", "#F28E2B", "#59A14F", "#B07AA1", "#EDC948", "#76B7B2", "#FF9DA7",
      "#9C755F", "#A0CBE8", "#8CD17D", "#D4A6C8", "#BCBD22", "#BDBDBD"};
  return kColors[std::min(rank, kTenantColorCount)];
}

const std::string& segment_color(std::size_t index) {
  static const std::array<std::string, 6> kColors = {"#332288", "#88CCEE", "#DDCC77",
                                                     "#CC6677", "#44AA99", "#AA4499"};
  return kColors[index % kColors.size()];
}

DurationUnit duration_unit(double max_s) {
  if (max_s < 180) return {"s", 1};
  if (max_s < 3 * 3600) return {"min", 60};
  if (max_s < 3 * 86400) return {"h", 3600};
  return {"d", 86400};
}

std::vector<std::pair<double, std::string>> linear_ticks(double lo, double hi, double pixel_lo,
                                                         double pixel_hi, int target_ticks,
                                                         bool horizontal) {
  AxisSpec spec;
  spec.min = lo;
  spec.max = hi;
  spec.include_zero = false;
  return resolve_axis(spec, lo, hi, pixel_lo, pixel_hi, target_ticks, horizontal).ticks;
}

std::string render_line_chart(const LineChart& chart) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo;
  double y_lo = x_lo, y_hi = -x_lo;
  for (const auto& s : chart.series) {
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      x_lo = std::min(x_lo, s.points[i].x);
      x_hi = std::max(x_hi, s.points[i].x);
      y_lo = std::min(y_lo, s.points[i].y);
      y_hi = std::max(y_hi, s.points[i].y);
      if (i < s.band.size()) {
        y_lo = std::min(y_lo, s.band[i].first);
        y_hi = std::max(y_hi, s.band[i].second);
      }
    }
  }
  // Series names: at the line ends when every line ends at the same x and the names, spread
  // to keep clear of each other, stay within kMaxLabelShift of their line's end; otherwise in
  // a legend above the plot. Never joined to the lines by leader lines.
  std::vector<const LineSeries*> named;
  double label_room = 0;
  for (const auto& s : chart.series) {
    if (s.points.empty()) continue;
    named.push_back(&s);
    label_room = std::max(label_room, text_width(truncate_label(s.label), kLabelFont));
  }
  const double plot_bottom = kHeight - kBottom;
  const double end_right = std::min(kRight, std::ceil(label_room) + 16);
  Mapped x = resolve_axis(chart.x, x_lo, x_hi, kLeft, kWidth - end_right, 6, true);
  Mapped y = resolve_axis(chart.y, y_lo, y_hi, plot_bottom, kTop, 5, false);
  struct EndLabel {
    double y;
    const LineSeries* series;
  };
  std::vector<EndLabel> end_labels;
  bool at_ends = !named.empty();
  for (const LineSeries* s : named)
    at_ends = at_ends && std::abs(x(s->points.back().x) - x(named.front()->points.back().x)) < 0.5;
  if (at_ends) {
    for (const LineSeries* s : named) end_labels.push_back({y(s->points.back().y), s});
    std::stable_sort(end_labels.begin(), end_labels.end(),
                     [](const EndLabel& a, const EndLabel& b) { return a.y < b.y; });
    std::vector<double> ys;
    ys.reserve(end_labels.size());
    for (const auto& l : end_labels) ys.push_back(l.y);
    spread(ys, kLabelSpacing, kTop + 4, plot_bottom);
    for (std::size_t i = 0; i < ys.size(); ++i) {
      at_ends = at_ends && std::abs(ys[i] - end_labels[i].y) <= kMaxLabelShift;
      end_labels[i].y = ys[i];
    }
  }
  // The legend: one item per series (a stroke of its colour, then its name), wrapping.
  struct LegendItem {
    double x, y;
    const LineSeries* series;
  };
  std::vector<LegendItem> legend;
  double top = kTop;
  if (!at_ends) {
    end_labels.clear();
    double lx = kLeft, ly = kTop;
    for (const LineSeries* s : named) {
      const double item = 24 + text_width(truncate_label(s->label), kLabelFont);
      if (lx > kLeft && lx + item > kWidth - 8) {
        lx = kLeft;
        ly += kLegendRow;
      }
      legend.push_back({lx, ly, s});
      lx += item + 16;
    }
    if (!legend.empty()) top = legend.back().y + kLegendRow + 6;
    x = resolve_axis(chart.x, x_lo, x_hi, kLeft, kWidth - kRightPlain, 6, true);
    y = resolve_axis(chart.y, y_lo, y_hi, plot_bottom + (top - kTop), top, 5, false);
  }
  const double height = kHeight + (top - kTop);
  const double bottom = plot_bottom + (top - kTop);
  const double plot_right = x.pixel_hi;
  std::string out = svg_open(kWidth, height, chart.title);
  // Grid, ticks and axes.
  out += "<g class=\"axes\">\n";
  for (const auto& [value, text] : y.ticks) {
    const double py = y(value);
    out += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                       num(kLeft), num(py), num(plot_right), num(py));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                       num(kLeft - 6), num(py + 3.5), markup_escape(text));
  }
  for (const auto& [value, text] : x.ticks) {
    const double px = x(value);
    out += fmt::format("<line class=\"tickmark\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                       num(px), num(bottom), num(px), num(bottom + 4));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       num(px), num(bottom + 15), markup_escape(text));
  }
  out += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(kLeft),
                     num(bottom), num(plot_right), num(bottom));
  out += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(kLeft),
                     num(top), num(kLeft), num(bottom));
  out +=
      fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                  num((kLeft + plot_right) / 2), num(height - 8), markup_escape(chart.x.label));
  out += fmt::format(
      "<text class=\"axis-label\" transform=\"translate({},{}) rotate(-90)\" "
      "text-anchor=\"middle\">{}</text>\n",
      num(14), num((top + bottom) / 2), markup_escape(chart.y.label));
  out += "</g>\n";
  // Bands under lines.
  for (const auto& s : chart.series) {
    if (s.band.size() != s.points.size() || s.points.empty()) continue;
    if (s.points.size() >= 2) {
      std::string polygon;
      for (std::size_t i = 0; i < s.points.size(); ++i)
        polygon += fmt::format("{},{} ", num(x(s.points[i].x)), num(y(s.band[i].second)));
      for (std::size_t i = s.points.size(); i-- > 0;)
        polygon += fmt::format("{},{} ", num(x(s.points[i].x)), num(y(s.band[i].first)));
      polygon.pop_back();
      out += fmt::format("<polygon class=\"band\" points=\"{}\" fill=\"{}\"/>\n", polygon, s.color);
    }
    for (std::size_t i = 0; i < s.points.size(); ++i) {  // error bars
      if (s.band[i].second <= s.band[i].first) continue;
      const double px = x(s.points[i].x);
      const double band_top = y(s.band[i].second), band_bottom = y(s.band[i].first);
      out += fmt::format(
          "<path class=\"errorbar\" d=\"M{0},{1} L{0},{2} M{3},{1} L{4},{1} M{3},{2} L{4},{2}\" "
          "stroke=\"{5}\"/>\n",
          num(px), num(band_top), num(band_bottom), num(px - 3), num(px + 3), s.color);
    }
  }
  // Lines and markers.
  for (const auto& s : chart.series) {
    if (s.points.empty()) continue;
    std::string d;
    for (std::size_t i = 0; i < s.points.size(); ++i)
      d +=
          fmt::format("{}{},{}", i == 0 ? "M" : " L", num(x(s.points[i].x)), num(y(s.points[i].y)));
    out +=
        fmt::format("<path class=\"mark line{}\" d=\"{}\" stroke=\"{}\"><title>{}</title></path>\n",
                    s.dashed ? " dashed" : "", d, s.color, markup_escape(s.label));
    if (s.markers || s.points.size() == 1) {
      for (const auto& p : s.points)
        out += fmt::format(
            "<circle class=\"mark point\" cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{}: {} at "
            "{}</title></circle>\n",
            num(x(p.x)), num(y(p.y)), s.color, markup_escape(s.label), format_value(p.y),
            format_value(p.x));
    }
  }
  // Names at the line ends, or the legend.
  for (const auto& l : end_labels)
    out += fmt::format(
        "<text class=\"direct-label\" x=\"{}\" y=\"{}\" fill=\"{}\">{}<title>{}</title></text>\n",
        num(x(l.series->points.back().x) + 6), num(l.y + 4), l.series->color,
        markup_escape(truncate_label(l.series->label)), markup_escape(l.series->label));
  for (const auto& item : legend) {
    const double cy = item.y + kLegendRow / 2;
    out += fmt::format(
        "<g class=\"legend-item\"><line class=\"legend-line{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" "
        "y2=\"{}\" stroke=\"{}\"/>",
        item.series->dashed ? " dashed" : "", num(item.x), num(cy), num(item.x + 18), num(cy),
        item.series->color);
    if (item.series->markers)
      out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>", num(item.x + 9),
                         num(cy), item.series->color);
    out += fmt::format(
        "<text class=\"legend-label\" x=\"{}\" y=\"{}\">{}<title>{}</title></text></g>\n",
        num(item.x + 24), num(cy + 4), markup_escape(truncate_label(item.series->label)),
        markup_escape(item.series->label));
  }
  out += "</svg>\n";
  return out;
}

std::string render_bar_chart(const BarChart& chart) {
  constexpr double kBar = 18, kGap = 10, kTopPad = 8, kAxis = 40;
  constexpr double kValueFont = 10.5, kKeyFont = 10.5, kKeyRow = 16, kInBarFont = 10;
  const std::size_t n = chart.categories.size();
  std::size_t longest = 4;
  for (const auto& c : chart.categories)
    longest = std::max(longest, std::min(c.size(), kMaxLabelChars));
  const double left = std::min(190.0, 7.0 * static_cast<double>(longest) + 14);
  const bool stacked = chart.segments.size() > 1;
  // Segment fills: stacked segments without a colour take the segment palette, so that every
  // segment has one fill shared by all bars and by its key swatch.
  std::vector<std::string> fills;
  for (std::size_t s = 0; s < chart.segments.size(); ++s)
    fills.push_back(!chart.segments[s].color.empty() ? chart.segments[s].color
                    : stacked                        ? segment_color(s)
                                                     : "");
  const auto fill_of = [&](std::size_t s, std::size_t i) {
    return fills[s].empty() ? chart.colors.at(i) : fills[s];
  };
  // Key layout: swatch + name per segment, wrapping onto further rows at the right edge.
  struct KeyItem {
    double x, y;
  };
  std::vector<KeyItem> key;
  if (stacked) {
    double kx = left, ky = kTopPad;
    for (const auto& seg : chart.segments) {
      const double item = 14 + text_width(seg.label, kKeyFont);
      if (kx > left && kx + item > kWidth - 8) {
        kx = left;
        ky += kKeyRow;
      }
      key.push_back({kx, ky});
      kx += item + 16;
    }
  }
  const double key_height = key.empty() ? 0 : key.back().y - kTopPad + kKeyRow + 2;
  const double top = kTopPad + key_height;
  const double height = top + static_cast<double>(n) * (kBar + kGap) + kAxis;
  std::vector<double> totals(n, 0.0);
  for (const auto& seg : chart.segments)
    for (std::size_t i = 0; i < n && i < seg.values.size(); ++i)
      totals[i] += std::max(0.0, seg.values[i]);
  const std::function<std::string(double)> value_text =
      chart.value_text ? chart.value_text : [](double v) { return format_value(v); };
  // The total after each bar (with its CI); the plot leaves room for the longest one.
  std::vector<std::string> end_labels;
  double value_room = 40;
  for (std::size_t i = 0; i < n; ++i) {
    std::string label = value_text(totals[i]);
    if (i < chart.errors.size() && chart.errors[i] > 0)
      label += " \u00b1 " + value_text(chart.errors[i]);
    value_room = std::max(value_room, text_width(label, kValueFont) + 12);
    end_labels.push_back(std::move(label));
  }
  const double plot_right = kWidth - std::min(value_room, 200.0);
  double hi = 0;
  for (std::size_t i = 0; i < n; ++i)
    hi = std::max(hi, totals[i] + (i < chart.errors.size() ? chart.errors[i] : 0.0));
  AxisSpec spec;
  spec.label = chart.axis_label;
  const Mapped x = resolve_axis(spec, 0, hi, left, plot_right, 5, true);
  const double axis_y = top + static_cast<double>(n) * (kBar + kGap);
  std::string out = svg_open(kWidth, height, chart.title);
  out += "<g class=\"axes\">\n";
  for (const auto& [value, text] : x.ticks) {
    const double px = x(value);
    out += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(px),
                       num(top - 4), num(px), num(axis_y));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       num(px), num(axis_y + 14), markup_escape(text));
  }
  out += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(left),
                     num(axis_y), num(plot_right), num(axis_y));
  out +=
      fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                  num((left + plot_right) / 2), num(height - 6), markup_escape(chart.axis_label));
  out += "</g>\n";
  for (std::size_t s = 0; s < key.size(); ++s) {  // segment key, in stacking order
    out += fmt::format(
        "<rect class=\"key\" x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>\n",
        num(key[s].x), num(key[s].y), fills[s]);
    out +=
        fmt::format("<text class=\"key-label\" x=\"{}\" y=\"{}\">{}</text>\n", num(key[s].x + 14),
                    num(key[s].y + 9), markup_escape(chart.segments[s].label));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double by = top + static_cast<double>(i) * (kBar + kGap);
    out += fmt::format(
        "<text class=\"category\" x=\"{}\" y=\"{}\" "
        "text-anchor=\"end\">{}<title>{}</title></text>\n",
        num(left - 8), num(by + kBar / 2 + 4), markup_escape(truncate_label(chart.categories[i])),
        markup_escape(chart.categories[i]));
    double start = 0;
    for (std::size_t s = 0; s < chart.segments.size(); ++s) {
      const BarSegment& seg = chart.segments[s];
      const double v = i < seg.values.size() ? std::max(0.0, seg.values[i]) : 0.0;
      const double x0 = x(start), x1 = x(start + v);
      const std::string fill = fill_of(s, i);
      const std::string what =
          seg.label.empty() ? chart.categories[i] : chart.categories[i] + ", " + seg.label;
      out += fmt::format(
          "<rect class=\"mark bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
          "<title>{}: {}</title></rect>\n",
          num(x0), num(by), num(std::max(0.0, x1 - x0)), num(kBar), fill, markup_escape(what),
          markup_escape(value_text(v)));
      if (stacked && x1 - x0 > text_width(seg.label, kInBarFont) + 8)
        out += fmt::format("<text class=\"in-bar\" x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n",
                           num(x0 + 4), num(by + kBar / 2 + 4),
                           is_light(fill) ? "#222222" : "#ffffff", markup_escape(seg.label));
      start += v;
    }
    double end = x(totals[i]);
    if (i < chart.errors.size() && chart.errors[i] > 0) {
      const double lo = x(std::max(0.0, totals[i] - chart.errors[i])),
                   hi_px = x(totals[i] + chart.errors[i]);
      const double cy = by + kBar / 2;
      out += fmt::format(
          "<path class=\"errorbar\" d=\"M{0},{1} L{2},{1} M{0},{3} L{0},{4} M{2},{3} L{2},{4}\" "
          "stroke=\"#222222\"/>\n",
          num(lo), num(cy), num(hi_px), num(cy - 4), num(cy + 4));
      end = hi_px;
    }
    out += fmt::format("<text class=\"value\" x=\"{}\" y=\"{}\">{}</text>\n", num(end + 5),
                       num(by + kBar / 2 + 4), markup_escape(end_labels[i]));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace schedlab::report
