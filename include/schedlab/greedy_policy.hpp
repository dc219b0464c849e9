// GreedyPolicy: the shared skeleton of list schedulers (FIFO, priority, SJF, ...).
//
// Contract: a list scheduler is its order: queued jobs are kept in a std::set ordered by
// (order_key(job), job index), updated incrementally on submit/requeue/start; order_key is
// evaluated once, when the job enters the queue, so it must not depend on later state. schedule()
// walks the order and starts each job the placement accepts.
// - With head-of-line blocking the first job that does not fit stops the walk: one instant
//   costs O((started jobs + 1) * log queue).
// - Without it, later jobs may start past a job that does not fit. A job that did not fit is
//   examined again only once GPUs have been released since (Changes::released(): a finish, a
//   requeue, or a node changing state): until then only newly queued jobs are tried. The walk
//   stops as soon as no GPU is free.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <utility>

#include "schedlab/policy.hpp"

namespace schedlab {

// Smaller keys start first; equal keys fall back to the job index (trace order).
struct OrderKey {
  std::int64_t primary = 0;
  std::int64_t secondary = 0;
  auto operator<=>(const OrderKey&) const = default;
};

// A job's place in the queue, from what the policy may know of it when it is queued.
using OrderKeyFn = std::function<OrderKey(const JobView& job)>;

class GreedyPolicy final : public Policy {
 public:
  GreedyPolicy(bool head_of_line_blocking, OrderKeyFn order_key)
      : blocking_(head_of_line_blocking), order_key_(std::move(order_key)) {}

  void on_submit(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }
  void on_requeue(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }
  void schedule(const SchedContext& ctx, Decisions& decisions) override;

 private:
  using Entry = std::pair<OrderKey, JobIndex>;
  using Queue = std::set<Entry>;
  Entry entry(const SchedContext& ctx, JobIndex job) const {
    return {order_key_(ctx.job(job)), job};
  }
  void enqueue(const SchedContext& ctx, JobIndex job) { queue_.insert(entry(ctx, job)); }
  // Starts the job at `it` if it fits; true if it started (and left the queue).
  bool try_start(const SchedContext& ctx, Decisions& decisions, Queue::iterator it);

  bool blocking_;
  OrderKeyFn order_key_;
  Queue queue_;
};

// A list scheduler ordered by `order_key`, for a policy's PolicyInfo::make.
inline std::unique_ptr<Policy> make_greedy_policy(bool head_of_line_blocking,
                                                  OrderKeyFn order_key) {
  return std::make_unique<GreedyPolicy>(head_of_line_blocking, std::move(order_key));
}

// The `blocking` parameter of list schedulers (default true).
inline PolicyParamInfo blocking_param() {
  return {"blocking", "true",
          "true: the first job that does not fit blocks later ones; false: later jobs may start",
          "boolean"};
}
inline bool blocking_value(const PolicyParams& params) {
  return params.get_bool("blocking", true);
}

}  // namespace schedlab
