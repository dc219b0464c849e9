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

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "sjf",
    "shortest walltime first (ties: submit time, trace order); non-preemptive",
    {schedlab::blocking_param()},
    [](const schedlab::PolicyParams& params) {
      return schedlab::make_greedy_policy(
          schedlab::blocking_value(params), [](const schedlab::JobView& job) {
            return schedlab::OrderKey{job.walltime_ms(), job.submit_ms()};
          });
    },
    false,
    schedlab::PolicyCardFacts{
        .algorithm =
            "Queued jobs in order of walltime (the estimate, never the true duration; shorter "
            "first), then submit time, then trace order; the first job that does not fit blocks "
            "later ones (blocking=false: they may start past it).",
        .citation =
            "W. E. Smith, \"Various optimizers for single-stage production\", Naval Research "
            "Logistics Quarterly 3(1-2), 1956 (shortest processing time first)",
        .inputs_stated = true,
        .needs_walltimes = true,
    }})
