// DemandShare: each tenant's GPU time received against its weighted max-min fair allocation of
// the cluster given every tenant's demand, both integrated over the time during which some job
// waits (docs/tenants.md, "demand-aware share").
//
// Contract: a tenant's demand is the GPUs it holds plus the GPUs its queued jobs ask for. At every
// instant its fair allocation is min(demand, weight x lambda), lambda being the water level at
// which the allocations of the tenants with a positive weight add up to the cluster's GPUs; when
// their demands add up to no more than the cluster, each is allocated its demand. A tenant of
// weight 0 is allocated nothing. Both integrals count only the instants at which at least one
// job is queued. record() takes the changes in time order; totals() integrates them exactly
// between the instants they happen, offline, in O(C log C) for C recorded changes (tenant count
// included), whatever the number of tenants.
#pragma once

#include <cstdint>
#include <vector>

#include "schedlab/tenants.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

class DemandShare {
 public:
  // weights[t] >= 0: tenant t's weight (its entitled share); capacity_gpus: the cluster's GPUs.
  DemandShare(std::int64_t capacity_gpus, std::vector<double> weights);

  // From `time_ms` on (non-decreasing across calls), `tenant` holds `held_gpus` and asks for
  // `demand_gpus` >= held_gpus in all, and `queued_jobs` jobs wait in the whole cluster.
  void record(TimeMs time_ms, TenantIndex tenant, std::int64_t demand_gpus, std::int64_t held_gpus,
              std::int64_t queued_jobs);

  struct Totals {
    double fair_gpu_ms = 0;      // integral of the fair allocation while some job waits
    double received_gpu_ms = 0;  // integral of the GPUs held while some job waits
  };
  // Per tenant, everything recorded integrated up to `end_ms` (>= the last change).
  std::vector<Totals> totals(TimeMs end_ms) const;

 private:
  struct Change {
    TimeMs time_ms;
    TenantIndex tenant;
    std::int64_t demand_gpus;
    std::int64_t held_gpus;
    std::int64_t queued_jobs;
  };
  std::int64_t capacity_gpus_;
  std::vector<double> weights_;
  std::vector<Change> changes_;
};

// Weighted max-min fair allocation of `capacity` by water-filling, as DemandShare defines it
// (weight 0: nothing); a direct O(n log n) computation for references and tests.
std::vector<double> weighted_max_min_allocation(double capacity, const std::vector<double>& demands,
                                                const std::vector<double>& weights);

}  // namespace schedlab
