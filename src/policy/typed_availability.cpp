#include "schedlab/typed_availability.hpp"

#include <algorithm>

#include "schedlab/error.hpp"

namespace schedlab {

TypedAvailability::TypedAvailability(const Cluster& cluster) {
  pool_of_type_.assign(cluster.gpu_types().size(), kAllPools);
  for (GpuTypeIndex t = 0; t < cluster.gpu_types().size(); ++t) {
    if (cluster.total_gpus_of(t) == 0) continue;
    pool_of_type_[t] = static_cast<std::uint32_t>(pools_.size());
    pools_.push_back({t, AvailabilityProfile(cluster.total_gpus_of(t))});
  }
}

void TypedAvailability::advance(TimeMs now_ms) {
  for (auto& pool : pools_) pool.profile.advance(now_ms);
}

TimeMs TypedAvailability::earliest_in(std::uint32_t pool, int gpus, TimeMs length_ms,
                                      const std::vector<TimeMs>& from_ms) const {
  if (pool != kAllPools) {
    if (from_ms[pool] == kNever) return kNever;
    return pools_[pool].profile.earliest_start(from_ms[pool], length_ms, gpus);
  }
  TimeMs t = 0;
  for (TimeMs from : from_ms) t = std::max(t, from);
  if (t == kNever) return kNever;
  while (true) {  // every pool wholly free for the length, from one common start
    TimeMs latest = t;
    for (const Pool& p : pools_)
      latest = std::max(latest, p.profile.earliest_start(t, length_ms, p.profile.capacity()));
    if (latest == t) return t;
    t = latest;
  }
}

TypedAvailability::Slot TypedAvailability::earliest(GpuTypeIndex type, int gpus, TimeMs length_ms,
                                                    TimeMs now_ms, bool retry) const {
  std::vector<TimeMs>& from_ms = from_ms_scratch_;
  from_ms.assign(pools_.size(), now_ms);
  if (retry)
    for (std::size_t p = 0; p < pools_.size(); ++p)
      from_ms[p] = pools_[p].profile.next_change_after(now_ms);
  Slot best;
  if (type != kAnyGpuType) {
    best.pool = pool_of_type_[type];
    SCHEDLAB_ASSERT(best.pool != kAllPools, "queued typed jobs have GPUs of their type");
    best.start_ms = earliest_in(best.pool, gpus, length_ms, from_ms);
    return best;
  }
  for (std::uint32_t p = 0; p < pools_.size(); ++p) {
    if (pools_[p].profile.capacity() < gpus) continue;
    const TimeMs t = earliest_in(p, gpus, length_ms, from_ms);
    if (t < best.start_ms) best = {p, t};
  }
  if (best.pool == kAllPools) best.start_ms = earliest_in(kAllPools, gpus, length_ms, from_ms);
  return best;
}

void TypedAvailability::take(std::uint32_t pool, int gpus, TimeMs from_ms, TimeMs to_ms,
                             bool give) {
  for (std::uint32_t p = 0; p < pools_.size(); ++p) {
    if (pool != kAllPools && pool != p) continue;
    const std::int64_t count = pool == kAllPools ? pools_[p].profile.capacity() : gpus;
    if (give) {
      pools_[p].profile.release(from_ms, to_ms, count);
    } else {
      pools_[p].profile.reserve(from_ms, to_ms, count);
    }
  }
}

}  // namespace schedlab
