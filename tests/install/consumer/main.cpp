// Runs a four-job trace with fifo on a 2x4 cluster through the installed library and checks
// the makespan and that the built-in policies registered themselves. Exit 0 on success.
#include <cstdio>
#include <exception>

#include "schedlab/cluster.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/trace.hpp"

int main() {
  try {
    // a and b start at 0; c waits for node 1 (free at 50); d waits behind c; a ends last at 100.
    const schedlab::Trace trace = schedlab::read_native_trace("consumer.csv",
                                                              "id,submit_time,gpus,duration\n"
                                                              "a,0,2,100\n"
                                                              "b,0,4,50\n"
                                                              "c,10,4,30\n"
                                                              "d,20,1,5\n");
    schedlab::SimulationRequest request;
    request.policy = "fifo";
    request.reproducible = true;
    const auto result = schedlab::simulate(trace, schedlab::parse_cluster_spec("2x4"), request);

    const double makespan_s = result.summary.at("makespan_s").get<double>();
    const auto policy_count = schedlab::registered_policies().size();
    std::printf("makespan_s %.1f, %zu built-in policies\n", makespan_s, policy_count);
    if (makespan_s != 100.0) {
      std::fprintf(stderr, "consumer: expected makespan_s 100.0, got %.3f\n", makespan_s);
      return 1;
    }
    if (policy_count < 7) {
      std::fprintf(stderr, "consumer: expected the 7 built-in policies, got %zu\n", policy_count);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
