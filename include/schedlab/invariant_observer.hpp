// An observer that checks the engine's invariants at every step, for tests and for the policy
// contract check (policy_contract.hpp):
// - allocated GPUs never exceed capacity, and the cluster's free count matches its masks;
// - no GPU is held by two jobs (a GPU owner table is kept independently of the cluster);
// - only running jobs hold GPUs, and every job ends completed, killed or rejected.
// A violation throws InvariantError with the job and GPU named.
#pragma once

#include <string>
#include <vector>

#include "schedlab/observer.hpp"

namespace schedlab {

class InvariantObserver : public Observer {
 public:
  void on_begin(const RunView& ctx) override;
  void on_advance(const RunView& ctx, TimeMs from_ms, TimeMs to_ms) override;
  void on_job(const RunView& ctx, JobIndex job, JobTransition what) override;
  void on_end(const RunView& ctx) override;

  std::uint64_t transitions() const { return transitions_; }
  std::uint64_t preemptions() const { return preemptions_; }
  std::uint64_t failures() const { return failures_; }  // attempts ended by node failures

 private:
  void check_capacity(const RunView& ctx) const;
  std::vector<std::vector<std::int64_t>> owner_;  // [node][gpu] = job index + 1, 0 = free
  std::int64_t held_gpus_ = 0;
  TimeMs last_time_ms_ = 0;
  std::uint64_t transitions_ = 0;
  std::uint64_t preemptions_ = 0;
  std::uint64_t failures_ = 0;
};

}  // namespace schedlab
