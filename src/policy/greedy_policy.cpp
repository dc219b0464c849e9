#include "schedlab/greedy_policy.hpp"

#include <algorithm>
#include <vector>

namespace schedlab {

bool GreedyPolicy::try_start(const SchedContext& ctx, Decisions& decisions, Queue::iterator it) {
  const JobIndex job = it->second;
  if (!ctx.may_start_now(job)) return false;
  if (!decisions.try_start(job)) return false;
  queue_.erase(it);
  return true;
}

void GreedyPolicy::schedule(const SchedContext& ctx, Decisions& decisions) {
  if (blocking_) {
    while (!queue_.empty() && try_start(ctx, decisions, queue_.begin())) {
    }
    return;
  }
  const Changes& changes = ctx.changes();
  if (changes.released()) {
    for (auto it = queue_.begin(); it != queue_.end() && ctx.capacity_left();) {
      const auto next = std::next(it);
      try_start(ctx, decisions, it);
      it = next;
    }
    return;
  }
  // Nothing was released: only jobs queued since the last call can start.
  std::vector<Entry> fresh;
  fresh.reserve(changes.arrived.size());
  for (JobIndex job : changes.arrived) fresh.push_back(entry(ctx, job));
  std::sort(fresh.begin(), fresh.end());
  for (const Entry& entry : fresh) {
    if (!ctx.capacity_left()) break;
    const auto it = queue_.find(entry);
    if (it != queue_.end()) try_start(ctx, decisions, it);
  }
}

}  // namespace schedlab
