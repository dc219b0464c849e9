// Cluster power by node state (docs/cluster.md): GPU board power (busy/idle, per type) on nodes
// that are on; with --node-power also each node's base power (CPUs, NICs, fans) while on and its
// off power while off or down; booting nodes draw base plus idle GPU power but run nothing.
// Facility power is IT power x PUE.
#pragma once

#include "schedlab/cluster.hpp"
#include "schedlab/run_options.hpp"

namespace schedlab {

struct PowerBreakdown {
  double gpu_busy_w = 0;
  double gpu_idle_w = 0;   // idle GPUs of nodes that are on
  double node_base_w = 0;  // base power of nodes that are on (--node-power)
  double off_w = 0;        // nodes off or down (--node-power)
  double boot_w = 0;       // booting nodes: base (--node-power) + idle GPUs
  double it_w() const { return gpu_busy_w + gpu_idle_w + node_base_w + off_w + boot_w; }
};

// Power drawn now. O(GPU types + node groups).
PowerBreakdown cluster_power(const Cluster& cluster, bool node_power);

// The run's PUE: --pue if given, else the cluster spec's (default 1.0).
double effective_pue(const RunOptions& options, const Cluster& cluster);

// Whether any cluster model is on for this run (an option, or a PUE other than 1 in the cluster
// spec). Outputs gain their cluster-model keys and columns exactly when this holds, so runs
// with every model off keep the plain model's outputs byte for byte.
bool cluster_models_active(const RunOptions& options, const Cluster& cluster);

}  // namespace schedlab
