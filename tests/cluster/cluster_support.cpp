#include "cluster/cluster_support.hpp"

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "support/builders.hpp"
#include "support/invariant_observer.hpp"

namespace schedlab::testing {

void NodeStateObserver::on_node(const RunView& ctx, NodeIndex node, NodeState from) {
  const NodeState to = ctx.cluster().node_state(node);
  if (from == to)
    throw InvariantError(fmt::format("node {} reported a change to its own state", node));
  changes_.push_back({ctx.now(), node, from, to});
  check(ctx);
}

void NodeStateObserver::on_job(const RunView& ctx, JobIndex /*job*/, JobTransition /*what*/) {
  check(ctx);
}

void NodeStateObserver::check(const RunView& ctx) const {
  const Cluster& cluster = ctx.cluster();
  for (JobIndex j : ctx.running()) {
    for (const auto& a : ctx.state(j).placement) {
      if (cluster.node_state(a.node) != NodeState::kOn)
        throw InvariantError(fmt::format("job '{}' runs on node {}, which is {}", ctx.spec(j).id,
                                         a.node, node_state_name(cluster.node_state(a.node))));
    }
  }
  std::uint32_t total = 0;
  std::int64_t unavailable_gpus = 0;
  for (int s = 0; s < kNodeStateCount; ++s)
    total += cluster.nodes_in_state(static_cast<NodeState>(s));
  for (NodeIndex n = 0; n < cluster.node_count(); ++n)
    if (cluster.node_state(n) != NodeState::kOn) unavailable_gpus += cluster.node(n).gpus;
  if (total != cluster.node_count() || unavailable_gpus != cluster.unavailable_gpus())
    throw InvariantError("node state counts do not add up");
  if (cluster.free_gpus() + cluster.busy_gpus() + cluster.unavailable_gpus() !=
      cluster.total_gpus())
    throw InvariantError("free + busy + unavailable GPUs differ from the total");
}

std::size_t NodeStateObserver::count(NodeState to) const {
  std::size_t n = 0;
  for (const auto& c : changes_) n += c.to == to ? 1 : 0;
  return n;
}

ClusterSpec cluster_from(const std::string& cluster) {
  return cluster.starts_with("{") ? parse_cluster_json_text(cluster, "cluster.json")
                                  : parse_cluster_spec(cluster);
}

SimulationResult run_models(const std::string& csv, const std::string& cluster, RunOptions options,
                            const std::string& policy, NodeStateObserver* node_observer) {
  const Trace trace = trace_from_csv(csv);
  InvariantObserver invariants;
  NodeStateObserver own;
  SimulationRequest request;
  request.policy = policy;
  request.options = std::move(options);
  request.reproducible = true;
  return simulate(trace, cluster_from(cluster), request,
                  {&invariants, node_observer ? node_observer : &own});
}

std::map<std::string, std::string> column_of(const SimulationResult& result,
                                             const std::string& name) {
  const auto ids = jobs_column(result.jobs_csv, "job_id");
  const auto values = jobs_column(result.jobs_csv, name);
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < ids.size(); ++i) out[ids[i]] = values[i];
  return out;
}

}  // namespace schedlab::testing
