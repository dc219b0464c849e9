#include "schedlab/gpu_sharing.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "schedlab/error.hpp"

namespace schedlab {

std::int64_t SharedNode::gpu_milli_free_total() const {
  return std::accumulate(gpu_milli_free.begin(), gpu_milli_free.end(), std::int64_t{0});
}

std::int64_t SharedCluster::gpu_count() const {
  std::int64_t count = 0;
  for (const auto& node : nodes) count += node.gpu_count();
  return count;
}

int SharedCluster::gpu_type_index(const std::string& name) const {
  const auto it = std::find(gpu_types.begin(), gpu_types.end(), name);
  return it == gpu_types.end() ? kNoGpuType : static_cast<int>(it - gpu_types.begin());
}

bool type_accepted(const SharedNode& node, const SharedTask& task) {
  if (task.gpus == 0) return true;
  if (node.gpu_type == kNoGpuType) return false;
  return task.gpu_type_mask == 0 || (task.gpu_type_mask >> node.gpu_type & 1U) != 0;
}

bool fits(const SharedNode& node, const SharedTask& task) {
  if (node.cpu_milli_free < task.cpu_milli || node.memory_mib_free < task.memory_mib) return false;
  if (!type_accepted(node, task)) return false;
  if (task.gpus == 0) return true;
  int able = 0;
  for (const int left : node.gpu_milli_free)
    if (left >= task.gpu_milli && ++able >= task.gpus) return true;
  return false;
}

std::vector<int> tightest_gpus(const SharedNode& node, const SharedTask& task) {
  if (task.gpus == 0 || !fits(node, task)) return {};
  std::vector<int> able;
  for (int g = 0; g < node.gpu_count(); ++g)
    if (node.gpu_milli_free[static_cast<std::size_t>(g)] >= task.gpu_milli) able.push_back(g);
  std::stable_sort(able.begin(), able.end(), [&](int a, int b) {
    return node.gpu_milli_free[static_cast<std::size_t>(a)] <
           node.gpu_milli_free[static_cast<std::size_t>(b)];
  });
  able.resize(static_cast<std::size_t>(task.gpus));
  return able;
}

void allocate(SharedNode& node, const SharedTask& task, const std::vector<int>& gpus) {
  SCHEDLAB_ASSERT(fits(node, task),
                  fmt::format("task {} does not fit node {}", task.name, node.name));
  SCHEDLAB_ASSERT(
      static_cast<int>(gpus.size()) == task.gpus,
      fmt::format("task {} asks for {} GPUs, given {}", task.name, task.gpus, gpus.size()));
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const int g = gpus[i];
    SCHEDLAB_ASSERT(g >= 0 && g < node.gpu_count(),
                    fmt::format("GPU {} not on node {}", g, node.name));
    SCHEDLAB_ASSERT(std::find(gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(i), g) ==
                        gpus.begin() + static_cast<std::ptrdiff_t>(i),
                    fmt::format("GPU {} given twice to task {}", g, task.name));
    SCHEDLAB_ASSERT(node.gpu_milli_free[static_cast<std::size_t>(g)] >= task.gpu_milli,
                    fmt::format("GPU {} of node {} over 1000 milli", g, node.name));
  }
  node.cpu_milli_free -= task.cpu_milli;
  node.memory_mib_free -= task.memory_mib;
  for (const int g : gpus) node.gpu_milli_free[static_cast<std::size_t>(g)] -= task.gpu_milli;
}

void release(SharedNode& node, const SharedTask& task, const std::vector<int>& gpus) {
  SCHEDLAB_ASSERT(
      static_cast<int>(gpus.size()) == task.gpus,
      fmt::format("task {} releases {} GPUs, holds {}", task.name, gpus.size(), task.gpus));
  node.cpu_milli_free += task.cpu_milli;
  node.memory_mib_free += task.memory_mib;
  for (const int g : gpus) {
    SCHEDLAB_ASSERT(g >= 0 && g < node.gpu_count(),
                    fmt::format("GPU {} not on node {}", g, node.name));
    node.gpu_milli_free[static_cast<std::size_t>(g)] += task.gpu_milli;
  }
  check_node_invariants(node);
}

void check_node_invariants(const SharedNode& node) {
  SCHEDLAB_ASSERT(node.cpu_milli_free >= 0 && node.cpu_milli_free <= node.cpu_milli,
                  fmt::format("node {}: CPU left {} outside 0..{}", node.name, node.cpu_milli_free,
                              node.cpu_milli));
  SCHEDLAB_ASSERT(node.memory_mib_free >= 0 && node.memory_mib_free <= node.memory_mib,
                  fmt::format("node {}: memory left {} outside 0..{}", node.name,
                              node.memory_mib_free, node.memory_mib));
  for (const int left : node.gpu_milli_free)
    SCHEDLAB_ASSERT(left >= 0 && left <= kMilliPerGpu,
                    fmt::format("node {}: a GPU with {} milli left", node.name, left));
}

}  // namespace schedlab
