// fifo — strict first-come-first-served.
//
// Algorithm: jobs start in submit-time order, ties broken by trace (file) order. The job at the
// head of the queue that does not fit blocks every later job (head-of-line blocking): nothing
// overtakes it, even if it would fit.
// Parameters: none.
// Citation: the baseline of every job-scheduling study, e.g. D. G. Feitelson, "Workload Modeling
// for Computer Systems Performance Evaluation", Cambridge University Press, 2015, ch. 8.
#include "schedlab/greedy_policy.hpp"

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "fifo",
    "first-come-first-served by submit time (ties: trace order); head-of-line blocking",
    {},
    [](const schedlab::PolicyParams&) {
      return schedlab::make_greedy_policy(true, [](const schedlab::JobView& job) {
        return schedlab::OrderKey{job.submit_ms(), 0};
      });
    },
    false,
    schedlab::PolicyCardFacts{
        .algorithm =
            "Jobs start in submit-time order (ties: trace order) while they fit; the first job "
            "that "
            "does not fit blocks every later one (head-of-line blocking), even one that would fit.",
        .citation =
            "the baseline of every job-scheduling study, e.g. D. G. Feitelson, \"Workload Modeling "
            "for "
            "Computer Systems Performance Evaluation\", Cambridge University Press, 2015, ch. 8",
        .inputs_stated = true,
    }})
