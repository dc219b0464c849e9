// The fragmentation measure of Weng et al. (USENIX ATC 2023): the expected share of a node's free
// GPU capacity that the workload's task mix cannot use, in milli-GPUs (docs/gpu-sharing.md).
//
// Contracts:
// - F_n(m), for node n and task class m, with G the node's free GPU milli: G when m uses no GPU
//   or cannot run on n (too little CPU left, a GPU type m does not accept, fewer than m.gpus
//   GPUs with m.gpu_milli left); otherwise the free milli of the GPUs that each hold less than
//   m.gpu_milli. Memory is not part of the measure (as in the paper's simulator).
// - The task mix M: tasks grouped into classes by (cpu_milli, gpus, gpu_milli, accepted types);
//   the most frequent classes (equal counts: the class with the larger key, compared in that
//   field order) are kept until they cover `coverage` of the tasks, and their counts
//   normalized into popularities p_m that sum to 1.
// - F_n(M) = sum over m of p_m F_n(m); a cluster's fragmentation is the sum over its nodes. A
//   node without GPUs has none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "schedlab/gpu_sharing.hpp"

namespace schedlab {

struct TaskClass {
  SharedTask task;  // the class's requests (memory 0, no name)
  std::size_t count = 0;
  double popularity = 0.0;
};

struct TaskMix {
  std::vector<TaskClass> classes;  // most frequent first
  std::size_t tasks = 0;           // tasks the mix was made from
};

// Throws InputError for no tasks or a coverage outside (0, 1].
TaskMix task_mix(const std::vector<SharedTask>& tasks, double coverage = 0.95);

std::int64_t fragmentation_milli(const SharedNode& node, const SharedTask& task);
double expected_fragmentation_milli(const SharedNode& node, const TaskMix& mix);

// expected_fragmentation_milli with a cache keyed by what the measure depends on (GPU type, CPU
// left, the multiset of GPU milli left): nodes in the same state cost one evaluation.
class FragmentationMeter {
 public:
  explicit FragmentationMeter(TaskMix mix) : mix_(std::move(mix)) {}
  double node_milli(const SharedNode& node);
  const TaskMix& mix() const { return mix_; }

 private:
  TaskMix mix_;
  std::unordered_map<std::string, double> cache_;
  std::string key_;          // reused lookup key
  std::vector<int> sorted_;  // reused scratch
};

}  // namespace schedlab
