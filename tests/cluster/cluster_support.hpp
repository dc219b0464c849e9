// Helpers for the cluster-model tests: runs with a JSON cluster and the invariant observers,
// summary lookups, and an observer that checks node-state rules.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/observer.hpp"
#include "schedlab/simulation.hpp"

namespace schedlab::testing {

// Checks at every node state change that no running job holds GPUs on a node that is not on,
// and that the cluster's per-state counts add up; records every change.
class NodeStateObserver : public Observer {
 public:
  struct Change {
    TimeMs time_ms = 0;
    NodeIndex node = 0;
    NodeState from = NodeState::kOn;
    NodeState to = NodeState::kOn;
  };
  void on_node(const RunView& ctx, NodeIndex node, NodeState from) override;
  void on_job(const RunView& ctx, JobIndex job, JobTransition what) override;
  const std::vector<Change>& changes() const { return changes_; }
  std::size_t count(NodeState to) const;

 private:
  void check(const RunView& ctx) const;
  std::vector<Change> changes_;
};

// Runs `policy` over native CSV `csv` on `cluster` (compact form or JSON text starting with
// '{') with the invariant and node-state observers attached.
SimulationResult run_models(const std::string& csv, const std::string& cluster, RunOptions options,
                            const std::string& policy = "fifo",
                            NodeStateObserver* node_observer = nullptr);

ClusterSpec cluster_from(const std::string& cluster);

// A column of jobs.csv keyed by job id.
std::map<std::string, std::string> column_of(const SimulationResult& result,
                                             const std::string& name);

}  // namespace schedlab::testing
