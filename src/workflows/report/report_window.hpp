// The time span the report's over-time charts show (docs/workflows.md#report): the busy window,
// so that idle stretches before the first job and after the last do not squeeze the charts.
#pragma once

#include <optional>
#include <utility>
#include <vector>

namespace schedlab::report {

// One row of timeseries.csv as the report reads it.
struct SeriesRow {
  double time_s = 0;
  double busy_gpus = 0;
  double idle_gpus = 0;
  double queued_jobs = 0;
};

// The busy window of runs drawn together: from the first row (the earliest time_s over the
// runs) in which a run has a busy GPU or a queued job, to the end of the last such row (the
// next row's time_s; a run's last row ends at its own time_s). nullopt when no row of any run
// has either. A row is the state from its time_s to the next row's.
std::optional<std::pair<double, double>> busy_window(
    const std::vector<const std::vector<SeriesRow>*>& runs);

}  // namespace schedlab::report
