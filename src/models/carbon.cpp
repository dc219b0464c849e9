#include "schedlab/carbon.hpp"

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

CarbonSeries parse_carbon_series(const std::string& path, std::string_view text) {
  CarbonSeries series;
  series.path = path;
  CsvReader csv(text, path);
  std::vector<std::string_view> fields;
  if (!csv.next_row(fields))
    throw TraceError(path, 1, "empty file: expected a header row with time, gco2_per_kwh");
  const CsvHeader header(fields, path, csv.line());
  const std::size_t columns = fields.size();
  const auto time_column = header.find("time");
  const auto value_column = header.find("gco2_per_kwh");
  if (!time_column || !value_column)
    throw TraceError(path, 1,
                     fmt::format("missing required column '{}' (required: time, gco2_per_kwh)",
                                 time_column ? "gco2_per_kwh" : "time"));
  while (csv.next_row(fields)) {
    const std::size_t line = csv.line();
    if (fields.size() != columns)
      throw TraceError(
          path, line,
          fmt::format("expected {} fields as in the header, got {}", columns, fields.size()));
    const auto time_ms = parse_seconds_ms(fields[*time_column]);
    if (!time_ms || *time_ms < 0)
      throw TraceError(path, line,
                       fmt::format("column 'time': expected seconds >= 0, got '{}'",
                                   trim(fields[*time_column])));
    if (!series.points.empty() && *time_ms <= series.points.back().time_ms)
      throw TraceError(path, line,
                       fmt::format("column 'time': {} is not after the previous row's time",
                                   trim(fields[*time_column])));
    const auto value = parse_double(fields[*value_column]);
    if (!value || *value < 0 || *value > 1e5)
      throw TraceError(
          path, line,
          fmt::format("column 'gco2_per_kwh': expected a number in 0..100000, got '{}'",
                      trim(fields[*value_column])));
    series.points.push_back({*time_ms, *value});
  }
  if (series.points.empty())
    throw TraceError(path, 2, "no rows: the file has a header but no intensities");
  return series;
}

CarbonSeries load_carbon_series(const std::string& path) {
  return parse_carbon_series(path, read_file_bytes(path));
}

double CarbonSeries::grams(double power_w, TimeMs from_ms, TimeMs to_ms,
                           std::size_t& cursor) const {
  constexpr double kJoulesPerKwh = 3.6e6;
  if (cursor >= points.size()) cursor = 0;
  if (points[cursor].time_ms > from_ms) cursor = 0;  // times went back: restart the scan
  double total = 0;
  TimeMs t = from_ms;
  while (t < to_ms) {
    while (cursor + 1 < points.size() && points[cursor + 1].time_ms <= t) ++cursor;
    const TimeMs end_ms =
        cursor + 1 < points.size() ? std::min(to_ms, points[cursor + 1].time_ms) : to_ms;
    total += power_w * static_cast<double>(end_ms - t) / kMsPerSecond / kJoulesPerKwh *
             points[cursor].g_per_kwh;
    t = end_ms;
  }
  return total;
}

}  // namespace schedlab
