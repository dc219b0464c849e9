// priority — highest priority first, FIFO among equals, non-preemptive.
//
// Algorithm: queued jobs are ordered by priority (larger first), then submit time, then trace
// order. By default the first job that does not fit blocks every later one (head-of-line
// blocking); with blocking=false later jobs that fit start past it.
// With aging=S a waiting job's priority grows by one per S seconds of waiting, linearly:
// aged priority = priority + (now - queued_since) / S. Two waiting jobs age at the same rate,
// so their relative order never changes while they wait; only a newcomer is compared against
// what the others have accumulated. The order is therefore the static key
// queued_since - priority * S (smaller first), then submit time, then trace order.
// Parameters: blocking (true), aging (seconds; 0 = off).
// Citation: priority scheduling with aging, A. Silberschatz, P. B. Galvin, G. Gagne,
// "Operating System Concepts", 10th ed., Wiley, 2018, sec. 5.3.3.
#include <limits>

#include "schedlab/greedy_policy.hpp"
#include "schedlab/policy_kit.hpp"

namespace schedlab {
namespace {

constexpr const char* kName = "priority";

// a - b * c, saturated to the int64 range.
std::int64_t saturating_sub_mul(std::int64_t a, std::int64_t b, std::int64_t c) {
  std::int64_t product = 0;
  std::int64_t result = 0;
  if (__builtin_mul_overflow(b, c, &product) || __builtin_sub_overflow(a, product, &result))
    return (b > 0) == (c > 0) ? std::numeric_limits<std::int64_t>::min()
                              : std::numeric_limits<std::int64_t>::max();
  return result;
}

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    schedlab::kName,
    "highest priority first, FIFO among equals; non-preemptive; optional linear aging",
    {schedlab::blocking_param(),
     {"aging", "0", "seconds of waiting that add one to a job's priority (0 = no aging)", "s"}},
    [](const schedlab::PolicyParams& params) {
      const schedlab::TimeMs aging_ms =
          schedlab::param_seconds_ms(params, schedlab::kName, "aging", 0);
      return schedlab::make_greedy_policy(
          schedlab::blocking_value(params), [aging_ms](const schedlab::JobView& job) {
            if (aging_ms == 0) return schedlab::OrderKey{-job.priority(), job.submit_ms()};
            return schedlab::OrderKey{
                schedlab::saturating_sub_mul(job.queued_since_ms(), job.priority(), aging_ms),
                job.submit_ms()};
          });
    },
    false,
    schedlab::PolicyCardFacts{
        .algorithm =
            "Queued jobs in order of priority (larger first), then submit time, then trace order; "
            "the first job that does not fit blocks later ones (blocking=false: they may start "
            "past "
            "it). With aging=S a waiting job's priority grows by one per S seconds, linearly, so "
            "the "
            "order is the static key queued_since - priority * S.",
        .citation =
            "priority scheduling with aging, A. Silberschatz, P. B. Galvin, G. Gagne, \"Operating "
            "System Concepts\", 10th ed., Wiley, 2018, sec. 5.3.3",
        .inputs_stated = true,
        .needs_priorities = true,
    }})
