// What `schedlab inflate` writes (docs/gpu-sharing.md "Outputs"): inflate.csv with every
// recorded point, and inflate.md / inflate.html with the standings at 100% arrived workload and
// the curves. Deterministic text: the same result gives the same bytes (wall times are left
// out).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "schedlab/inflate.hpp"
#include "schedlab/summary_fields.hpp"

namespace schedlab {

// Per placement, ranked by mean unallocated GPUs at 100% arrived (fewer first; equal means keep
// the order the placements were given in).
struct InflateStanding {
  SharedPlacementKind placement = SharedPlacementKind::kFgd;
  int rank = 0;
  std::vector<double> unallocated_gpus_at_100;  // one per seed
  MeanCi unallocated_gpus;                      // of unallocated_gpus_at_100
};
std::vector<InflateStanding> inflate_standings(const InflateResult& result);

// Columns: placement, seed, arrived_percent, arrived_gpus, allocated_gpus, unallocated_gpus,
// allocated_share, fragmentation_gpus, fragmentation_share, gpus_idle, gpus_partly_used,
// tasks_arrived, tasks_unplaced.
std::string inflate_csv(const InflateResult& result);

// File name -> content: inflate.csv, inflate.md, inflate.html.
std::vector<std::pair<std::string, std::string>> inflate_outputs(const InflateResult& result);

}  // namespace schedlab
