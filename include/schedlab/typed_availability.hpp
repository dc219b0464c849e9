// Free GPUs over time per GPU type, for policies that reserve by count: one
// AvailabilityProfile per GPU type that has GPUs (a "pool"), running jobs and reservations
// counted until their walltime-based ends.
//
// Contract: a reservation lives in one pool (its type's, or for an untyped job the pool that
// gives it the earliest start, ties: lowest type index) or, for an untyped job larger than
// every pool, in all pools at once, taking each wholly. Counting does not see node shapes.
#pragma once

#include <cstdint>
#include <vector>

#include "schedlab/availability_profile.hpp"
#include "schedlab/cluster.hpp"

namespace schedlab {

class TypedAvailability {
 public:
  static constexpr std::uint32_t kAllPools = 0xFFFFFFFFu;
  struct Slot {
    std::uint32_t pool = kAllPools;
    TimeMs start_ms = kNever;  // kNever: no slot
  };

  explicit TypedAvailability(const Cluster& cluster);

  // Drops the past before `now_ms`.
  void advance(TimeMs now_ms);
  // Earliest slot for `gpus` GPUs of `type` (kAnyGpuType: any) during `length_ms`, searching
  // from `now_ms`, or with `retry` from each pool's next change after `now_ms`.
  Slot earliest(GpuTypeIndex type, int gpus, TimeMs length_ms, TimeMs now_ms, bool retry) const;
  // Takes (give = false) or gives back the GPUs of a reservation in `pool` over [from, to).
  void take(std::uint32_t pool, int gpus, TimeMs from_ms, TimeMs to_ms, bool give);
  // The GPU type a job reserved in `pool` is placed within (kAnyGpuType for kAllPools).
  GpuTypeIndex pool_type(std::uint32_t pool) const {
    return pool == kAllPools ? kAnyGpuType : pools_[pool].type;
  }

 private:
  struct Pool {
    GpuTypeIndex type;
    AvailabilityProfile profile;
  };
  // Earliest start in `pool` (or all pools) at or after from_ms[p] per pool.
  TimeMs earliest_in(std::uint32_t pool, int gpus, TimeMs length_ms,
                     const std::vector<TimeMs>& from_ms) const;

  std::vector<Pool> pools_;
  std::vector<std::uint32_t> pool_of_type_;
  mutable std::vector<TimeMs> from_ms_scratch_;  // earliest()'s per-pool search starts
};

}  // namespace schedlab
