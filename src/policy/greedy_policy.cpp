#include "schedlab/greedy_policy.hpp"

#include <algorithm>

namespace schedlab {

void GreedyPolicy::enqueue(const SchedContext& ctx, JobIndex job) {
  const Entry entry{order_key(ctx, job), job};
  queue_.insert(entry);
  if (!blocking_) fresh_.push_back(entry);
}

void GreedyPolicy::on_submit(const SchedContext& ctx, JobIndex job) {
  enqueue(ctx, job);
}

void GreedyPolicy::on_finish(const SchedContext& /*ctx*/, JobIndex /*job*/) {
  released_ = true;
}

void GreedyPolicy::on_requeue(const SchedContext& ctx, JobIndex job) {
  released_ = true;
  enqueue(ctx, job);
}

bool GreedyPolicy::try_start(const SchedContext& ctx, Decisions& decisions, Queue::iterator it) {
  const JobIndex job = it->second;
  if (ctx.cluster().free_gpus_of(ctx.job_gpu_type(job)) < ctx.spec(job).gpus) return false;
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
  if (ctx.cluster().node_state_version() != node_state_version_) {  // nodes came or went
    node_state_version_ = ctx.cluster().node_state_version();
    released_ = true;
  }
  if (released_) {
    for (auto it = queue_.begin(); it != queue_.end() && ctx.cluster().free_gpus() > 0;) {
      const auto next = std::next(it);
      try_start(ctx, decisions, it);
      it = next;
    }
  } else {
    std::sort(fresh_.begin(), fresh_.end());
    for (const Entry& entry : fresh_) {
      if (ctx.cluster().free_gpus() == 0) break;
      const auto it = queue_.find(entry);
      if (it != queue_.end()) try_start(ctx, decisions, it);
    }
  }
  fresh_.clear();
  released_ = false;
}

}  // namespace schedlab
