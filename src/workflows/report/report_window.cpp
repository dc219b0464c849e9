#include "report_window.hpp"

#include <algorithm>
#include <limits>

namespace schedlab::report {

std::optional<std::pair<double, double>> busy_window(
    const std::vector<const std::vector<SeriesRow>*>& runs) {
  double from = std::numeric_limits<double>::infinity();
  double to = -from;
  for (const auto* rows : runs)
    for (std::size_t i = 0; i < rows->size(); ++i) {
      const SeriesRow& row = (*rows)[i];
      if (row.busy_gpus <= 0 && row.queued_jobs <= 0) continue;
      from = std::min(from, row.time_s);
      to = std::max(to, i + 1 < rows->size() ? (*rows)[i + 1].time_s : row.time_s);
    }
  if (!(to >= from)) return std::nullopt;
  return std::pair{from, to};
}

}  // namespace schedlab::report
