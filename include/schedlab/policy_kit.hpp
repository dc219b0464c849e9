// Building blocks for policies that look ahead or preempt: victim selection, failed-size
// pruning, parameter parsing, and a read-only view of a policy's reservations (for tests and
// tools). Progress and preemption costs come from SchedContext, what-if placement from WhatIf.
//
// Every helper is deterministic: results depend only on the simulation state and the
// arguments, never on addresses or unordered containers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/policy.hpp"

namespace schedlab {

// Chooses running jobs to preempt so that `job` (queued) can be placed.
//
// `candidates` must be running and preemptible (the caller applies its own eligibility rules:
// priorities, protection windows). Returns the victims, sorted by job index, or nullopt when
// preempting every candidate would still not make room.
// - A job that fits on one node: for every node of its type, the cheapest set of candidates
//   holding GPUs there that frees enough GPUs on it (exact, by a covering knapsack over the
//   node's candidates); the node with the least total cost wins, then fewer victims, then the
//   lowest node index.
// - A larger job: candidates are added cheapest per GPU first (ties: job index) until the
//   placement strategy finds room in the what-if state, then each victim is dropped again,
//   most expensive first, if room remains without it.
// Costs are SchedContext::preemption_cost_gpu_ms. The what-if cluster is left as it was found.
// Candidates holding part of a GPU (JobView::shares_a_gpu) are never chosen: preempting one frees
// no GPU while others share it (docs/gpu-sharing.md).
std::optional<std::vector<JobIndex>> choose_victims(const SchedContext& ctx, JobIndex job,
                                                    const std::vector<JobIndex>& candidates);

// Within one schedule() pass over jobs whose chances only shrink as the pass goes on (no GPU
// is released to later jobs, victims only become fewer), the smallest GPU count per type that
// already found no room: a later job needing at least that many GPUs of that type, or of any
// type after an untyped failure, cannot find room either. On a cluster whose nodes differ in
// size that holds only for failures of jobs no larger than its smallest node (a larger job may
// take whole small nodes where a smaller one found no node with room), so only those count.
class FailedSizes {
 public:
  FailedSizes() = default;  // nodes of one size
  explicit FailedSizes(const Cluster& cluster);
  void add(GpuTypeIndex type, int gpus);
  bool rules_out(GpuTypeIndex type, int gpus) const;
  // Whether every job of `gpus` GPUs is ruled out, whatever its type (a job of any type failed
  // with no more GPUs).
  bool rules_out_any_type(int gpus) const { return rules_out(kAnyGpuType, gpus); }
  // After a preemption: the victims may free more GPUs than the job takes.
  void clear() { smallest_.clear(); }

 private:
  std::vector<std::pair<GpuTypeIndex, int>> smallest_;        // few entries: one per type seen
  int counted_up_to_gpus_ = std::numeric_limits<int>::max();  // larger failures are not kept
};

// Necessary conditions, from a cluster's free GPUs, for a job of N GPUs of any GPU type to be
// placed. The strategies put a job no larger than the largest node of its type on one node; so
// when N is no larger than the largest node of every type, some node must have N GPUs free;
// otherwise N GPUs must be free in all.
class PlacementBound {
 public:
  explicit PlacementBound(const Cluster& cluster);
  bool may_fit(int gpus) const {
    return gpus <= one_node_up_to_gpus_ ? gpus <= most_free_on_a_node_ : gpus <= free_gpus_;
  }

 private:
  std::int64_t free_gpus_;
  int one_node_up_to_gpus_;  // the smallest, over GPU types with nodes, of their largest node
  int most_free_on_a_node_ = 0;
};

// A queued job as queues ordered by priority keep it, and that order: priority (larger
// first), then submit time, then job index.
struct PriorityEntry {
  std::int64_t priority;
  TimeMs submit_ms;
  JobIndex job;
};
struct ByPriorityThenSubmit {
  bool operator()(const PriorityEntry& a, const PriorityEntry& b) const {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.submit_ms != b.submit_ms) return a.submit_ms < b.submit_ms;
    return a.job < b.job;
  }
};

// Parameter helpers: each throws ConfigError "--param key=value: policy 'P' expects ...".
// A time >= 0 as milliseconds: decimal seconds, or with a unit as --filter takes it (90s, 30m,
// 12h, 2d).
TimeMs param_seconds_ms(const PolicyParams& params, const std::string& policy,
                        const std::string& key, TimeMs fallback_ms);
// A comma-separated, strictly ascending list of positive numbers.
std::vector<double> param_ascending_list(const PolicyParams& params, const std::string& policy,
                                         const std::string& key, const std::string& fallback);
[[noreturn]] void param_error(const std::string& policy, const std::string& key,
                              const std::string& value, const std::string& expected);

// Implemented by policies that hold reservations (backfilling): the reservations in force
// after the latest schedule() call, as (job, start time) pairs sorted by job index. A queued
// job listed here is promised to start no later than that time, as long as running jobs end
// by their walltimes.
class ReservationSource {
 public:
  virtual ~ReservationSource() = default;
  virtual std::vector<std::pair<JobIndex, TimeMs>> reservations() const = 0;

  // (start, job) pairs as the sorted (job, start) list reservations() returns.
  static std::vector<std::pair<JobIndex, TimeMs>> by_job(
      const std::set<std::pair<TimeMs, JobIndex>>& by_start) {
    std::vector<std::pair<JobIndex, TimeMs>> out;
    out.reserve(by_start.size());
    for (const auto& [start_ms, job] : by_start) out.emplace_back(job, start_ms);
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace schedlab
