// Inline-SVG charts for the HTML report: line charts (with confidence bands; series named at
// the line ends or in a legend) and horizontal bar charts; the Gantt chart is in
// report_gantt.hpp. Output is deterministic text: coordinates are printed with one
// decimal, no random ids, no external references.
//
// Every data-bearing element carries class "mark"; the report's render check counts them.
// Every number printed in a chart (ticks, bar-end values, tooltips) goes through format_value,
// and no two tick labels of an axis come closer than kMinTickGap.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schedlab/printable.hpp"  // markup_escape

namespace schedlab::report {

// The CSS rules of every chart here (classes line, band, tick, ...): a page that shows the
// charts includes them in its <style>.
extern const char* const kChartStyle;

// The report's one number format: `digits` significant digits (at least 1), trailing zeros
// dropped, no exponent; magnitudes from 1000 on are scaled to a k, M or G suffix.
// Examples with 3 digits: "0", "0.0461", "2.5", "11.3", "172", "1.18k", "88.7k", "1.2M".
std::string format_value(double value, int digits = 3);

// Estimated advance width of `text` in SVG user units at `font_size`, from per-character
// widths of DejaVu Sans (the widest common sans-serif fallback), so real text is rarely wider:
// 0.32 em for a space, 0.28 em for narrow characters (".,:;|!'il"), 0.98 em for m, w, M, W,
// 0.64 em for anything else (UTF-8 continuation bytes count nothing).
double text_width(std::string_view text, double font_size);

// Tick labels are 10 units high; neighbouring tick labels of an axis keep at least this much
// free space between their estimated boxes (ticks that would come closer are dropped).
inline constexpr double kTickFontSize = 10;
inline constexpr double kMinTickGap = 6;

// Colour-blind-safe palette (Okabe-Ito), assigned to series (runs, variants) in order.
const std::string& palette_color(std::size_t index);
// Fills for the segments of stacked bars, in order: colour-blind safe (Paul Tol's muted
// scheme) and distinct from the series palette, so a segment colour never reads as a run.
const std::string& segment_color(std::size_t index);

// Tenant colours by rank (Tableau's 10 plus two, distinct from each other and from black and
// red): ranks 0 to kTenantColorCount - 1 get their own, every later rank the grey of "others".
inline constexpr std::size_t kTenantColorCount = 12;
const std::string& tenant_color(std::size_t rank);

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
  bool dashed = false;  // a reference level (e.g. an entitlement) rather than data
};

enum class Scale { kLinear, kLog10 };

struct AxisSpec {
  std::string label;  // with its unit, e.g. "time (days)"
  Scale scale = Scale::kLinear;
  std::optional<double> min;  // fixed bounds; otherwise from the data
  std::optional<double> max;
  bool include_zero = true;  // linear axes start at 0 unless the data is negative
  // Explicit ticks (value, text), in order of priority: when labels would collide, a tick is
  // dropped in favour of those listed before it. Otherwise "nice" ticks with format_value text
  // (with enough digits to tell neighbours apart), thinned from the ends inward.
  std::vector<std::pair<double, std::string>> ticks;
};

// Series are named in the series' colour, never joined to their lines by leader lines (they
// would read as reference levels): at the line ends (right of the last points) when every
// line ends at the same x and each name, spread to keep 13 units from its neighbours, stays
// within 8 units of its line's end; otherwise in a legend above the plot (a stroke of the
// series' colour, with a dot for lines with markers, then the name).
struct LineChart {
  std::string title;
  AxisSpec x;
  AxisSpec y;
  std::vector<LineSeries> series;
};
std::string render_line_chart(const LineChart& chart);

// Ticks of a linear axis over exactly [lo, hi] drawn on [pixel_lo, pixel_hi]: "nice" values
// with format_value text, thinned so that labels keep kMinTickGap apart.
std::vector<std::pair<double, std::string>> linear_ticks(double lo, double hi, double pixel_lo,
                                                         double pixel_hi, int target_ticks,
                                                         bool horizontal);

struct BarSegment {
  std::string label;           // "" for a single-segment chart
  std::vector<double> values;  // one per category
  // Fill of this segment in every bar; empty: each bar takes its category colour (the usual
  // choice for a single segment). Stacked charts give each segment its own colour.
  std::string color;
};

// Horizontal bars, one per category. With several segments (stacked left to right) the chart
// has a key above the bars: one swatch per segment, filled exactly like the segment, next to
// its name. Every segment rect carries a <title> "category, segment: value"; the bar's total
// (with its CI when given) is printed after the end of every bar.
struct BarChart {
  std::string title;
  std::string axis_label;  // value axis, with unit
  std::vector<std::string> categories;
  std::vector<std::string> colors;   // one per category
  std::vector<BarSegment> segments;  // stacked left to right
  std::vector<double> errors;        // optional +- half-widths of the stacked total (95% CI)
  std::function<std::string(double)> value_text;  // values and totals; default format_value
};
std::string render_bar_chart(const BarChart& chart);

}  // namespace schedlab::report
