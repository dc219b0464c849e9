// Placement strategies for shared GPUs, after the definitions of the FGD paper (Weng et al.,
// USENIX ATC 2023) and its public simulator; docs/gpu-sharing.md works an example of each.
//
// Every strategy but random-fit scores each node the task fits and takes the highest score;
// equal scores go to the lowest node index (the node list's order). On the chosen node the task
// takes tightest_gpus() unless stated otherwise. cpu_norm / gpu_norm are the largest node's CPU
// milli and GPU milli (GPUs x 1000).
// - random-fit: a node drawn uniformly among those the task fits; a sharing task's GPU drawn
//   uniformly among the node's GPUs with enough left (both from the run's Rng).
// - best-fit: the least left after placing: score -(0.5 (cpu_left - cpu)/cpu_norm
//   + 0.5 (gpu_left - gpu)/gpu_norm), gpu = the task's total milli.
// - dot-product: the smallest dot product of what is left and what is asked:
//   score -(cpu_left cpu / cpu_norm^2 + gpu_left gpu / gpu_norm^2).
// - gpu-packing: partly used GPUs first, then partly used nodes, then idle nodes with fewer
//   GPUs. Score: 100 - (milli left on the chosen GPUs, in percent of a GPU, / 10) but at least
//   50 when every chosen GPU is partly used; max(50 - chosen idle GPUs, 33) on a node with some
//   GPU in use; max(33 - GPUs, 0) on a node with no GPU in use; 0 for a CPU-only task.
// - gpu-clustering: nodes that hold only tasks of the same GPU demand (sharing, or k whole GPUs)
//   score 75, nodes holding that demand among others 50, nodes without GPU tasks 25, others 0;
//   plus floor(25 (gpu_norm - gpu_left) / gpu_norm). CPU-only tasks score 0.
// - fgd: the node where the expected fragmentation F_n(M) (gpu_fragmentation.hpp) grows least:
//   with delta = F_n(M) before - after placing, score floor(100 / (1 + exp(-delta / 1000))), the
//   simulator's integer score (so close deltas tie and go to the lower index). A sharing task
//   tries each GPU with enough left and takes the one with the largest delta (ties: lower index).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedlab/gpu_fragmentation.hpp"
#include "schedlab/gpu_sharing.hpp"
#include "schedlab/random.hpp"

namespace schedlab {

enum class SharedPlacementKind : std::uint8_t {
  kRandomFit,
  kBestFit,
  kDotProduct,
  kGpuPacking,
  kGpuClustering,
  kFgd
};
inline constexpr SharedPlacementKind kAllSharedPlacements[] = {
    SharedPlacementKind::kRandomFit,     SharedPlacementKind::kBestFit,
    SharedPlacementKind::kDotProduct,    SharedPlacementKind::kGpuPacking,
    SharedPlacementKind::kGpuClustering, SharedPlacementKind::kFgd};

const char* shared_placement_name(SharedPlacementKind kind);
// Throws ConfigError "unknown placement 'X' (known: ...)".
SharedPlacementKind parse_shared_placement(const std::string& name);

// Places tasks on `nodes`, which only commit() and release() change while the placer lives.
// `meter` (needed by fgd and by node_fragmentation_milli; may be null otherwise) and `rng`
// (random-fit) must outlive the placer. Nodes marked unusable (set_usable) are never chosen.
class SharedPlacer {
 public:
  SharedPlacer(SharedPlacementKind kind, std::vector<SharedNode>& nodes, FragmentationMeter* meter,
               Rng& rng);

  // Chooses a node and GPUs for `task` and allocates them; nothing when the task fits no node.
  std::optional<SharedAllocation> place(const SharedTask& task);
  // Chooses without allocating (random-fit draws from the Rng all the same).
  std::optional<SharedAllocation> choose(const SharedTask& task);
  // Allocates `task` on `gpus` of node `n` (InvariantError when it does not fit), and the inverse.
  void commit(std::size_t n, const SharedTask& task, const std::vector<int>& gpus);
  void release(std::size_t n, const SharedTask& task, const std::vector<int>& gpus);
  void set_usable(std::size_t n, bool usable) { usable_[n] = usable ? 1 : 0; }
  bool usable(std::size_t n) const { return usable_[n] != 0; }
  SharedPlacementKind kind() const { return kind_; }
  const std::vector<SharedNode>& nodes() const { return nodes_; }
  // F_n(M) of node n in its current state; kept per node, recomputed after a change there.
  double node_fragmentation_milli(std::size_t n);

 private:
  std::optional<SharedAllocation> choose_random(const SharedTask& task);
  double score(std::size_t n, const SharedTask& task, std::vector<int>& gpus);
  double fgd_score(std::size_t n, const SharedTask& task, std::vector<int>& gpus);

  SharedPlacementKind kind_;
  std::vector<SharedNode>& nodes_;
  FragmentationMeter* meter_;
  Rng& rng_;
  double cpu_norm_ = 1.0;
  double gpu_norm_ = 1.0;
  std::vector<std::uint64_t> demand_tags_;    // gpu-clustering: demands held, a bit each
  std::vector<std::uint32_t> demand_counts_;  // gpu-clustering: [node * 64 + bit] tasks held
  std::vector<std::uint8_t> usable_;          // [node] 1 = may be chosen
  std::vector<double> fragmentation_;         // F_n(M) of each node now; < 0 = not known
  SharedNode scratch_;
};

}  // namespace schedlab
