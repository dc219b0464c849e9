// Inline-SVG charts for the HTML report: line charts (with confidence bands and direct labels)
// and horizontal bar charts. Output is deterministic text: coordinates are printed with one
// decimal, no random ids, no external references.
//
// Every data-bearing element carries class "mark"; the report's render check counts them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedlab::report {

std::string html_escape(std::string_view text);
// Tick-style number: "0", "2.5", "120", "15k", "1.2M" (at most 3 significant digits).
std::string compact_number(double value);
// A value with about 3-4 significant digits and no exponent ("40540", "11.26", "0.173").
std::string short_number(double value);

// Colour-blind-safe palette (Okabe-Ito), assigned to series in order.
const std::string& palette_color(std::size_t index);

// Durations: picks s, min, h or d so that `max_s` reads as a small number.
struct DurationUnit {
  std::string name;  // "s", "min", "h", "d"
  double seconds = 1.0;
};
DurationUnit duration_unit(double max_s);

struct Point {
  double x = 0.0;
  double y = 0.0;
};

struct LineSeries {
  std::string label;
  std::string color;
  std::vector<Point> points;
  // Optional confidence band, one (low, high) per point.
  std::vector<std::pair<double, double>> band;
  bool markers = false;
};

enum class Scale { kLinear, kLog10 };

struct AxisSpec {
  std::string label;  // with its unit, e.g. "time (days)"
  Scale scale = Scale::kLinear;
  std::optional<double> min;  // fixed bounds; otherwise from the data
  std::optional<double> max;
  bool include_zero = true;  // linear axes start at 0 unless the data is negative
  // Explicit ticks (value, text); otherwise "nice" ticks with compact_number text.
  std::vector<std::pair<double, std::string>> ticks;
};

struct LineChart {
  std::string title;
  AxisSpec x;
  AxisSpec y;
  std::vector<LineSeries> series;
  // Where direct labels are anchored: each series' value at this x (a leader line joins it to
  // the label in the right margin). Unset: each series' last point.
  std::optional<double> label_x;
};
std::string render_line_chart(const LineChart& chart);

struct BarSegment {
  std::string label;           // "" for a single-segment chart
  std::vector<double> values;  // one per category
  double opacity = 1.0;        // segments share the category colour at different opacities
};

struct BarChart {
  std::string title;
  std::string axis_label;  // value axis, with unit
  std::vector<std::string> categories;
  std::vector<std::string> colors;   // one per category
  std::vector<BarSegment> segments;  // stacked left to right
  std::vector<double> errors;        // optional +- half-widths of the stacked total (95% CI)
  std::function<std::string(double)> value_text;  // bar-end labels; default short_number
};
std::string render_bar_chart(const BarChart& chart);

}  // namespace schedlab::report
