// sjf — shortest job first by walltime, non-preemptive.
//
// Algorithm: queued jobs are ordered by walltime (the estimate policies see, never the true
// duration; shorter first), then submit time, then trace order. By default the first job that
// does not fit blocks every later one (head-of-line blocking); with blocking=false later jobs
// that fit start past it.
// Parameters: blocking (true).
// Citation: W. E. Smith, "Various optimizers for single-stage production", Naval Research
// Logistics Quarterly 3(1-2), 1956 (shortest processing time first).
#include "schedlab/greedy_policy.hpp"

namespace schedlab {
namespace {

class SjfPolicy final : public GreedyPolicy {
 public:
  explicit SjfPolicy(bool blocking) : GreedyPolicy(blocking) {}

 protected:
  OrderKey order_key(const SchedContext& ctx, JobIndex job) const override {
    return {ctx.job(job).walltime_ms(), ctx.job(job).submit_ms()};
  }
};

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "sjf",
    "shortest walltime first (ties: submit time, trace order); non-preemptive",
    {{"blocking", "true",
      "true: the first job that does not fit blocks later ones; false: later jobs may start"}},
    [](const schedlab::PolicyParams& params) -> std::unique_ptr<schedlab::Policy> {
      return std::make_unique<schedlab::SjfPolicy>(params.get_bool("blocking", true));
    }})
