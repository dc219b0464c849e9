// smallest-first — smallest GPU count first, then submit time; an example plug-in policy.
//
// Algorithm: queued jobs are ordered by the GPUs they ask for (fewer first), then submit time,
// then trace order. By default the first job that does not fit blocks every later one
// (head-of-line blocking); with blocking=false later jobs that fit start past it.
// Parameters: blocking (true).
// Citation: list scheduling by job size, one of the orders surveyed in D. G. Feitelson,
// L. Rudolph, U. Schwiegelshohn, K. C. Sevcik, P. Wong, "Theory and practice in parallel job
// scheduling", JSSPP 1997, LNCS 1291.
//
// Built outside the tree as a plug-in (CMakeLists.txt beside this file):
//   schedlab run --plugin build/libsmallest_first.so --policy smallest-first -t TRACE -c 4x8
#include <schedlab/greedy_policy.hpp>

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "smallest-first",
    "fewest GPUs first (ties: submit time, trace order); non-preemptive; an example plug-in",
    {schedlab::blocking_param()},
    [](const schedlab::PolicyParams& params) {
      return schedlab::make_greedy_policy(schedlab::blocking_value(params),
                                          [](const schedlab::JobView& job) {
                                            return schedlab::OrderKey{job.gpus(), job.submit_ms()};
                                          });
    }})
