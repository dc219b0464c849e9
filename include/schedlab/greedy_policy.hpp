// GreedyPolicy: the shared skeleton of list schedulers (FIFO, priority, SJF, ...).
//
// Contract: queued jobs are kept in a std::set ordered by (order_key(job), job index), updated
// incrementally on submit/requeue/start, so one instant costs O(started jobs * log queue) with
// head-of-line blocking. schedule() walks the order and starts each job the placement accepts;
// with head-of-line blocking the first job that does not fit stops the walk.
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

  void on_submit(const SchedContext& ctx, JobIndex job) override;
  void on_requeue(const SchedContext& ctx, JobIndex job) override;
  void schedule(const SchedContext& ctx, Decisions& decisions) override;

 protected:
  virtual OrderKey order_key(const SchedContext& ctx, JobIndex job) const = 0;
  using Queue = std::set<std::pair<OrderKey, JobIndex>>;
  const Queue& queue() const { return queue_; }
  Queue& mutable_queue() { return queue_; }
  bool blocking() const { return blocking_; }

 private:
  bool blocking_;
  Queue queue_;
};

}  // namespace schedlab
