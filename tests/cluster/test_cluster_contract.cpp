// The engine contract for every registered policy with all cluster models on: topology with
// pods, placement-dependent speed, generated node failures, node power with power-off of idle
// nodes, PUE and carbon. Checked with the invariant observer and the node-state observer: no
// GPU double-booked or held on a node that is not on, every job final, byte-identical reruns,
// restarts = preemptions + failures.
#include <catch2/catch.hpp>

#include <memory>

#include <fmt/format.h>

#include "cluster/cluster_support.hpp"
#include "schedlab/carbon.hpp"
#include "schedlab/failure_model.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/random.hpp"
#include "support/builders.hpp"
#include "support/invariant_observer.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Six 4-GPU nodes: two pods of one rack pair each (V100 and A100 racks), NVLink domains of 2.
const std::string kCluster = R"({
  "topology": {"node_uplink_gbps": 200, "rack_uplink_gbps": 800, "pod_uplink_gbps": 1600},
  "node_groups": [
    {"count": 2, "gpus_per_node": 4, "gpu_type": "V100", "rack": "v", "pod": "p1", "nvlink_domain_gpus": 2},
    {"count": 2, "gpus_per_node": 4, "gpu_type": "A100", "rack": "a", "pod": "p1"},
    {"count": 2, "gpus_per_node": 4, "gpu_type": "A100", "rack": "b", "pod": "p2"}
  ],
  "pue": 1.25
})";

// Random native CSV with every optional column the models read.
std::string random_csv(Rng& rng, int jobs, double mean_gap_s) {
  static const char* kComm[] = {"none", "low", "medium", "high", ""};
  static const char* kType[] = {"", "", "", "A100", "V100"};
  std::string csv =
      "id,submit_time,gpus,duration,walltime,priority,preemptible,checkpoint_interval,gpu_type,"
      "comm,speeds\n";
  double t = 0;
  for (int i = 0; i < jobs; ++i) {
    t += rng.exponential(mean_gap_s);
    const int gpus = static_cast<int>(rng.uniform_int(1, 10));
    const double duration = static_cast<double>(rng.uniform_int(5, 300));
    const double walltime = duration * (1.0 + rng.uniform() * 2.0);
    const char* type = gpus <= 8 ? kType[rng.uniform_int(0, 4)] : "";
    csv += fmt::format("j{},{:.3f},{},{},{:.3f},{},{},{},{},{},{}\n", i, t, gpus, duration,
                       walltime, rng.uniform_int(0, 3), rng.uniform() < 0.7 ? 1 : 0,
                       rng.uniform() < 0.5 ? "" : "30", type, kComm[rng.uniform_int(0, 4)],
                       rng.uniform() < 0.2 ? "V100=0.7;A100=1.1" : "");
  }
  return csv;
}

}  // namespace

namespace {

struct Outcome {
  std::uint64_t failures = 0;
  bool nodes_off = false;
};

// One run with the invariant and node-state observers, a rerun for byte-identity, and the
// contract's checks on the summary.
Outcome check_contract(const std::string& csv, const RunOptions& options,
                       const std::string& policy) {
  NodeStateObserver nodes;
  const auto first = run_models(csv, kCluster, options, policy, &nodes);
  const auto again = run_models(csv, kCluster, options, policy);
  CHECK(first.summary.dump() == again.summary.dump());
  CHECK(first.jobs_csv == again.jobs_csv);
  CHECK(first.timeseries_csv == again.timeseries_csv);
  const auto& restarts = first.summary["restarts"];
  CHECK(restarts["total"].get<std::uint64_t>() ==
        restarts["preemptions"].get<std::uint64_t>() + restarts["failures"].get<std::uint64_t>());
  const auto& jobs = first.summary["jobs"];
  CHECK(jobs["submitted"].get<std::size_t>() == 40);
  CHECK(jobs["completed"].get<std::size_t>() + jobs["rejected"].get<std::size_t>() +
            restarts["walltime_kills"].get<std::size_t>() ==
        40);
  CHECK(first.summary["energy_kwh"]["facility"].get<double>() > 0);
  CHECK(first.summary["emissions_kg"].get<double>() > 0);
  return {restarts["failures"].get<std::uint64_t>(), nodes.count(NodeState::kOff) > 0};
}

RunOptions all_models(const std::string& placement) {
  RunOptions options;
  options.placement = placement;
  options.speed_model = SpeedModel::kFull;
  options.node_power = true;
  options.checkpoint_interval_ms = 20'000;
  options.restart_overhead_ms = 5'000;
  options.carbon = std::make_shared<const CarbonSeries>(
      parse_carbon_series("grid.csv", "time,gco2_per_kwh\n0,300\n600,150\n1800,450\n"));
  return options;
}

std::vector<std::string> contract_traces() {
  Rng rng(424242);
  return {random_csv(rng, 40, 25), random_csv(rng, 40, 8)};
}

}  // namespace

TEST_CASE(
    "every registered policy keeps the engine contract with speed, topology, node power, PUE, "
    "carbon",
    "[cluster-model][contract]") {
  const auto policies = registered_policies();
  REQUIRE(!policies.empty());
  for (const auto& info : policies) {
    for (const char* placement : {"pack", "topology"}) {
      const RunOptions options = all_models(placement);
      const auto traces = contract_traces();
      for (std::size_t t = 0; t < traces.size(); ++t) {
        INFO("policy " << info.name << ", placement " << placement << ", trace " << t);
        check_contract(traces[t], options, info.name);
      }
    }
  }
}

// Failures and powered-off nodes change which GPUs exist while a policy plans: policies must
// follow node states (Cluster::sync_node_states for private copies of the cluster; re-examine
// waiting jobs when cluster().node_state_version() changes).
TEST_CASE("every registered policy keeps the engine contract with failures and power-off too",
          "[cluster-model][contract]") {
  std::uint64_t total_failures = 0;
  std::uint64_t runs_with_nodes_off = 0;
  const auto policies = registered_policies();
  REQUIRE(!policies.empty());
  for (const auto& info : policies) {
    for (const char* placement : {"pack", "topology"}) {
      RunOptions options = all_models(placement);
      parse_failures_option("rate=40000,repair=0.05,seed=5", options);  // about 1 failure per 360 s
      options.power_off_idle_ms = 40'000;
      options.boot_time_ms = 30'000;
      const auto traces = contract_traces();
      for (std::size_t t = 0; t < traces.size(); ++t) {
        INFO("policy " << info.name << ", placement " << placement << ", trace " << t);
        const Outcome outcome = check_contract(traces[t], options, info.name);
        total_failures += outcome.failures;
        runs_with_nodes_off += outcome.nodes_off ? 1 : 0;
      }
    }
  }
  // The models did act: jobs were killed by failures and nodes were powered off.
  CHECK(total_failures > 0);
  CHECK(runs_with_nodes_off > 0);
}
