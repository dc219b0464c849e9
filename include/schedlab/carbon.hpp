// Grid carbon intensity over time (--carbon FILE), for summary.json's emissions_kg.
//
// The file is CSV with columns time (seconds from the job trace's time origin) and
// gco2_per_kwh (grams of CO2 per kWh drawn, >= 0), times strictly increasing. The intensity is
// piecewise constant: at time t it is the value of the last row with time <= t, and before the
// first row that of the first row.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "schedlab/types.hpp"

namespace schedlab {

struct CarbonSeries {
  struct Point {
    TimeMs time_ms = 0;
    double g_per_kwh = 0;
  };
  std::string path;
  std::vector<Point> points;  // non-empty, strictly increasing times

  // Grams of CO2 emitted by drawing `power_w` over [from_ms, to_ms). `cursor` is the caller's
  // position in the series: calls with non-decreasing times cost O(1) amortized.
  double grams(double power_w, TimeMs from_ms, TimeMs to_ms, std::size_t& cursor) const;
};

// Throws TraceError "FILE:LINE: message".
CarbonSeries parse_carbon_series(const std::string& path, std::string_view text);
CarbonSeries load_carbon_series(const std::string& path);

}  // namespace schedlab
