// Node inventories published with traces, read as cluster specs so a trace replays on its
// own cluster: `--cluster alibaba-openb:FILE`, `alibaba-pai:FILE`, `philly-vc:FILE[@VC]`.
#pragma once

#include <optional>
#include <string>

#include "schedlab/cluster.hpp"

namespace schedlab {

// A ClusterSpec if `text` starts with one of the inventory prefixes; nullopt otherwise.
// Throws TraceError "FILE:LINE: message" for a bad file.
std::optional<ClusterSpec> parse_inventory_cluster_spec(const std::string& text);

// Alibaba openb node list (sn, cpu_milli, memory_mib, gpu, model): one node group per
// (model, gpu) in first-seen order; nodes without GPUs are left out.
ClusterSpec read_openb_node_list(const std::string& path);
// Alibaba PAI 2020 pai_machine_spec (machine, gpu_type, cap_cpu, cap_mem, cap_gpu; header
// optional): one group per (gpu_type, cap_gpu) in first-seen order; CPU-only machines left out.
ClusterSpec read_pai_machine_spec(const std::string& path);
// Philly philly_vc.csv (vc, node num; 8 GPUs per node): one group (rack) per VC, or only `vc`.
ClusterSpec read_philly_vc_list(const std::string& path, const std::string& vc);

// GPU types the inventories name (T4, P100, V100M16, V100M32, A10, MISC, G1-G3), with board
// power; docs/traces.md#node-inventories lists the figures and their sources.
const std::vector<GpuType>& inventory_gpu_types();

}  // namespace schedlab
