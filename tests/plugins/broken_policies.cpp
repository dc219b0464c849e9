// Plug-in policies that break the engine contract, for the tests of `schedlab check-policy`:
// - test-nondeterministic: every other instance walks the queue last-come-first-served, so a
//   second run of the same inputs starts jobs in another order;
// - test-illegal-start: asks to start the queue's head twice at one instant.
#include <memory>

#include <schedlab/greedy_policy.hpp>

namespace {

class IllegalStart final : public schedlab::Policy {
 public:
  void schedule(const schedlab::SchedContext& ctx, schedlab::Decisions& decisions) override {
    const schedlab::JobIndex head = ctx.queue().head();
    const auto placement = decisions.find_placement(head);
    if (!placement) return;
    decisions.start(head, *placement);
    decisions.start(head, *placement);
  }
};

}  // namespace

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "test-nondeterministic",
    "FIFO or LIFO, alternating between instances",
    {},
    [](const schedlab::PolicyParams&) {
      static int instances = 0;
      const bool lifo = instances++ % 2 == 1;
      return schedlab::make_greedy_policy(false, [lifo](const schedlab::JobView& job) {
        return schedlab::OrderKey{lifo ? -job.submit_ms() : job.submit_ms(), 0};
      });
    }})

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "test-illegal-start", "starts the queue's head twice", {}, [](const schedlab::PolicyParams&) {
      return std::make_unique<IllegalStart>();
    }})
