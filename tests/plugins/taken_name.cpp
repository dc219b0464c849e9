// A plug-in that registers a policy under a built-in's name: load_plugin must refuse it.
#include <schedlab/greedy_policy.hpp>

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "fifo", "a second fifo", {}, [](const schedlab::PolicyParams&) {
      return schedlab::make_greedy_policy(true, [](const schedlab::JobView& job) {
        return schedlab::OrderKey{job.submit_ms(), 0};
      });
    }})
