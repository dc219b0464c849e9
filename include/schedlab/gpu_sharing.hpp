// GPU sharing: nodes whose GPUs are handed out in thousandths (milli) next to the node's CPU and
// memory, and tasks that ask for whole GPUs or a fraction of one. The model of Weng et al.,
// "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
// Descent", USENIX ATC 2023, and of its public simulator (docs/gpu-sharing.md).
//
// Contracts:
// - A task asks for `gpus` GPUs with `gpu_milli` of each: gpus = 1 with gpu_milli in 1..999 is
//   a sharing task; gpus >= 1 with gpu_milli = 1000 asks for whole GPUs; gpus = 0 (gpu_milli 0)
//   is a CPU-only task. Plus cpu_milli and memory_mib, both >= 0.
// - A task may name the GPU types it accepts (a bit set over SharedCluster::gpu_types; 0 = any).
// - A task fits a node when the node's CPU and memory left cover its requests, the node's GPU
//   type is accepted (GPU tasks only; a node without GPUs takes CPU-only tasks), and at least
//   `gpus` of the node's GPUs each have gpu_milli left.
// - allocate() never takes a GPU below 0 milli left (so no GPU's fractions sum above 1000), nor
//   a node's CPU or memory below 0 left; it throws InvariantError instead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

inline constexpr int kMilliPerGpu = 1000;
// GPU types a shared cluster can name (bits of SharedTask::gpu_type_mask).
inline constexpr std::size_t kMaxSharedGpuTypes = 64;
inline constexpr int kNoGpuType = -1;

struct SharedNode {
  std::string name;
  int gpu_type = kNoGpuType;  // index into SharedCluster::gpu_types; kNoGpuType without GPUs
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int64_t cpu_milli_free = 0;
  std::int64_t memory_mib_free = 0;
  std::vector<int> gpu_milli_free;  // one entry per GPU, 0..1000

  int gpu_count() const { return static_cast<int>(gpu_milli_free.size()); }
  std::int64_t gpu_milli_free_total() const;
};

struct SharedTask {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  int gpus = 0;                     // 0 = CPU only
  int gpu_milli = 0;                // per GPU: 1..1000 when gpus > 0, else 0
  std::uint64_t gpu_type_mask = 0;  // accepted GPU types; 0 = any
  std::uint32_t line = 0;           // 1-based line in its file (messages)

  std::int64_t gpu_milli_total() const { return static_cast<std::int64_t>(gpus) * gpu_milli; }
  bool sharing() const { return gpus == 1 && gpu_milli < kMilliPerGpu; }
};

// Nodes with their GPU type names; a node's GPUs are all of one type.
struct SharedCluster {
  std::string source;
  std::vector<std::string> gpu_types;
  std::vector<SharedNode> nodes;

  std::int64_t gpu_count() const;
  // Index of `name` in gpu_types, or kNoGpuType.
  int gpu_type_index(const std::string& name) const;
};

bool type_accepted(const SharedNode& node, const SharedTask& task);
bool fits(const SharedNode& node, const SharedTask& task);

// Where a task goes: a node (index) and the GPUs it takes there (`gpus` of them).
struct SharedAllocation {
  std::size_t node = 0;
  std::vector<int> gpus;
};

// The GPUs of `node` that a fitting task takes by default: those with enough milli left, least
// left first, ties to the lower index (so whole-GPU tasks take idle GPUs in index order, and a
// sharing task the fullest GPU it fits). Empty when the task does not fit or uses no GPU.
std::vector<int> tightest_gpus(const SharedNode& node, const SharedTask& task);

// Takes the task's resources on `gpus` of `node`. Throws InvariantError when they do not fit.
void allocate(SharedNode& node, const SharedTask& task, const std::vector<int>& gpus);
// Gives them back (the inverse of allocate). Throws InvariantError above capacity.
void release(SharedNode& node, const SharedTask& task, const std::vector<int>& gpus);

// Throws InvariantError unless every GPU has 0..1000 milli left and CPU and memory left are
// within 0..capacity.
void check_node_invariants(const SharedNode& node);

}  // namespace schedlab
