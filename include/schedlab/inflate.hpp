// The workload-inflation experiment of the FGD paper (Weng et al., USENIX ATC 2023, section 6):
// tasks drawn from a pod list arrive one by one on an empty cluster and never leave, until the
// GPUs they ask for reach `inflation` times the cluster's GPUs; each placement strategy places
// them, and the allocated and unallocated GPUs are recorded against the arrived workload.
// docs/gpu-sharing.md has the rules and the comparison with the paper.
//
// Contracts:
// - A replicate's arrivals, for seed s: the pod list shuffled (Fisher-Yates with Rng(s)), then
//   pods drawn uniformly with replacement from the list (same Rng) appended while the total
//   requested GPU milli stays at or below inflation x capacity. The same seed gives every
//   placement the same arrivals; random-fit draws from the same Rng after the arrivals.
// - A task that fits no node is dropped (counted as unplaced) and the next one arrives.
// - A point is recorded when the arrived GPU milli first reaches each whole percent of the
//   capacity (0%, 1%, ...), after the task that reached it was placed or dropped.
// - The task mix of the fragmentation measure is made from the whole pod list (coverage option).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedlab/gpu_sharing.hpp"
#include "schedlab/shared_placement.hpp"

namespace schedlab {

struct InflateOptions {
  std::vector<SharedPlacementKind> placements{std::begin(kAllSharedPlacements),
                                              std::end(kAllSharedPlacements)};
  std::vector<std::uint64_t> seeds{42, 43, 44, 45, 46, 47, 48, 49, 50, 51};
  double inflation = 1.3;  // arrived GPU milli stops at this multiple of capacity, [1, 10]
  double coverage = 0.95;  // of the task mix, (0, 1]
};

struct InflatePoint {
  int arrived_percent = 0;           // of the cluster's GPU capacity
  std::int64_t arrived_milli = 0;    // GPU milli asked for by the tasks arrived so far
  std::int64_t allocated_milli = 0;  // GPU milli held by placed tasks
  double fragmentation_milli = 0.0;  // the cluster's F(M), sum over nodes
  std::uint64_t tasks_arrived = 0;
  std::uint64_t tasks_unplaced = 0;
  std::uint64_t gpus_idle = 0;         // GPUs with nothing allocated
  std::uint64_t gpus_partly_used = 0;  // GPUs with some but not all milli allocated
};

struct InflateReplicate {
  SharedPlacementKind placement = SharedPlacementKind::kFgd;
  std::uint64_t seed = 0;
  std::vector<InflatePoint> points;  // one per whole percent, 0 .. floor(100 x inflation)
  double seconds = 0.0;              // wall time of the placements (not part of any output file)
};

struct InflateResult {
  std::string nodes_source;
  std::string tasks_source;
  std::size_t nodes = 0;
  std::int64_t gpus = 0;
  std::size_t pods = 0;
  std::size_t task_classes = 0;    // in the task mix
  double task_mix_coverage = 0.0;  // share of the pods the kept classes cover
  InflateOptions options;
  std::vector<InflateReplicate> replicates;  // placements in option order, seeds within each
};

// Throws ConfigError for bad options (no placements or seeds, inflation outside [1, 10],
// coverage outside (0, 1]) and InputError when no task asks for a GPU. `progress`, when given, is
// called after each replicate.
InflateResult run_inflate(const SharedCluster& cluster, const std::vector<SharedTask>& tasks,
                          const InflateOptions& options,
                          const std::function<void(const InflateReplicate&)>& progress = {});

// The point at `percent` of arrived workload of a replicate.
const InflatePoint& point_at(const InflateReplicate& replicate, int percent);

}  // namespace schedlab
