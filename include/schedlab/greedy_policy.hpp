// GreedyPolicy: the shared skeleton of list schedulers (FIFO, priority, SJF, ...).
//
// Contract: queued jobs are kept in a std::set ordered by (order_key(job), job index), updated
// incrementally on submit/requeue/start; order_key is evaluated once, when the job enters the
// queue, so it must not depend on later state. schedule() walks the order and starts each job
// the placement accepts.
// - With head-of-line blocking the first job that does not fit stops the walk: one instant
//   costs O((started jobs + 1) * log queue).
// - Without it, later jobs may start past a job that does not fit. A job that did not fit is
//   examined again only once GPUs have been released since (Changes::released(): a finish, a
//   requeue, or a node changing state): until then only newly queued jobs are tried. The walk
//   stops as soon as no GPU is free.
#pragma once

#include <cstdint>
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

class GreedyPolicy : public Policy {
 public:
  explicit GreedyPolicy(bool head_of_line_blocking) : blocking_(head_of_line_blocking) {}

  void on_submit(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }
  void on_requeue(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }
  void schedule(const SchedContext& ctx, Decisions& decisions) override;

 protected:
  virtual OrderKey order_key(const SchedContext& ctx, JobIndex job) const = 0;
  using Entry = std::pair<OrderKey, JobIndex>;
  using Queue = std::set<Entry>;
  const Queue& queue() const { return queue_; }
  bool blocking() const { return blocking_; }

 private:
  void enqueue(const SchedContext& ctx, JobIndex job) { queue_.emplace(order_key(ctx, job), job); }
  // Starts the job at `it` if it fits; true if it started (and left the queue).
  bool try_start(const SchedContext& ctx, Decisions& decisions, Queue::iterator it);

  bool blocking_;
  Queue queue_;
};

}  // namespace schedlab
