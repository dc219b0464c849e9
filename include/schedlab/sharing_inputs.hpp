// Inputs of the GPU-sharing experiments: a node inventory with CPU and memory (openb's node
// list) and a list of pod requests (openb's pod list), read with their real requests.
// docs/gpu-sharing.md "Inputs" lists the columns and rules.
//
// Every input error is a TraceError "FILE:LINE: column 'NAME': expected WHAT, got 'VALUE'".
#pragma once

#include <string>
#include <vector>

#include "schedlab/gpu_sharing.hpp"

namespace schedlab {

// Columns sn, cpu_milli, memory_mib, gpu, model (model required when gpu > 0). Every node is
// kept, nodes without GPUs too (they take CPU-only tasks). GPU types in first-seen order.
SharedCluster read_shared_nodes(const std::string& path);

// Columns name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec (optional; "A|B" = any of
// them); other columns are ignored, so every pod is a task whatever its phase. num_gpu 0 needs
// gpu_milli 0 (or missing); num_gpu 1 takes gpu_milli 1..1000; num_gpu > 1 needs 1000 (a
// missing gpu_milli means 1000 for a GPU pod). A gpu_spec must name at least one GPU type of
// `cluster`; names of types the cluster lacks are dropped. The file may be gzip-compressed.
std::vector<SharedTask> read_shared_tasks(const std::string& path, const SharedCluster& cluster);

}  // namespace schedlab
