#include "schedlab/greedy_policy.hpp"

namespace schedlab {

void GreedyPolicy::on_submit(const SchedContext& ctx, JobIndex job) {
  queue_.emplace(order_key(ctx, job), job);
}

void GreedyPolicy::on_requeue(const SchedContext& ctx, JobIndex job) {
  queue_.emplace(order_key(ctx, job), job);
}

void GreedyPolicy::schedule(const SchedContext& /*ctx*/, Decisions& decisions) {
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (decisions.try_start(it->second)) {
      it = queue_.erase(it);
    } else if (blocking_) {
      return;
    } else {
      ++it;
    }
  }
}

}  // namespace schedlab
