#include "schedlab/shared_placement.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "schedlab/error.hpp"

namespace schedlab {

namespace {

constexpr double kNoScore = -std::numeric_limits<double>::infinity();

// gpu-clustering's demand of a GPU task: bit 0 for a sharing task, bit k for k whole GPUs
// (tasks of 63 GPUs or more share bit 63).
std::uint64_t demand_bit(const SharedTask& task) {
  if (task.sharing()) return 1;
  return std::uint64_t{1} << std::min(task.gpus, 63);
}

double packing_score(const SharedNode& node, const SharedTask& task, const std::vector<int>& gpus) {
  if (task.gpus == 0) return 0.0;
  const auto idle_gpus =
      std::count(node.gpu_milli_free.begin(), node.gpu_milli_free.end(), kMilliPerGpu);
  if (idle_gpus == node.gpu_count()) return static_cast<double>(std::max<long>(33 - idle_gpus, 0));
  long chosen_idle = 0;
  long left_percent = 0;
  for (const int g : gpus) {
    const int left = node.gpu_milli_free[static_cast<std::size_t>(g)];
    if (left == kMilliPerGpu) ++chosen_idle;
    left_percent += left * 100 / kMilliPerGpu;
  }
  if (chosen_idle > 0) return static_cast<double>(std::max<long>(50 - chosen_idle, 33));
  return static_cast<double>(std::max<long>(100 - left_percent / 10, 50));
}

}  // namespace

const char* shared_placement_name(SharedPlacementKind kind) {
  switch (kind) {
    case SharedPlacementKind::kRandomFit: return "random-fit";
    case SharedPlacementKind::kBestFit: return "best-fit";
    case SharedPlacementKind::kDotProduct: return "dot-product";
    case SharedPlacementKind::kGpuPacking: return "gpu-packing";
    case SharedPlacementKind::kGpuClustering: return "gpu-clustering";
    case SharedPlacementKind::kFgd: return "fgd";
  }
  return "?";
}

SharedPlacementKind parse_shared_placement(const std::string& name) {
  std::string known;
  for (const auto kind : kAllSharedPlacements) {
    if (name == shared_placement_name(kind)) return kind;
    if (!known.empty()) known += ", ";
    known += shared_placement_name(kind);
  }
  throw ConfigError(fmt::format("unknown placement '{}' (known: {})", name, known));
}

SharedPlacer::SharedPlacer(SharedPlacementKind kind, std::vector<SharedNode>& nodes,
                           FragmentationMeter* meter, Rng& rng)
    : kind_(kind),
      nodes_(nodes),
      meter_(meter),
      rng_(rng),
      demand_tags_(nodes.size(), 0),
      usable_(nodes.size(), 1),
      fragmentation_(nodes.size(), -1.0) {
  if (kind == SharedPlacementKind::kGpuClustering) demand_counts_.assign(nodes.size() * 64, 0);
  SCHEDLAB_ASSERT(kind != SharedPlacementKind::kFgd || meter != nullptr,
                  "fgd placement needs a fragmentation meter");
  for (const auto& node : nodes) {
    cpu_norm_ = std::max(cpu_norm_, static_cast<double>(node.cpu_milli));
    gpu_norm_ = std::max(gpu_norm_, static_cast<double>(node.gpu_count()) * kMilliPerGpu);
  }
}

double SharedPlacer::node_fragmentation_milli(std::size_t n) {
  SCHEDLAB_ASSERT(meter_ != nullptr, "node fragmentation needs a fragmentation meter");
  if (fragmentation_[n] < 0.0) fragmentation_[n] = meter_->node_milli(nodes_[n]);
  return fragmentation_[n];
}

double SharedPlacer::fgd_score(std::size_t n, const SharedTask& task, std::vector<int>& gpus) {
  const SharedNode& node = nodes_[n];
  double delta = 0.0;
  if (node.gpu_count() > 0) {
    const double before = node_fragmentation_milli(n);
    if (!task.sharing()) {
      gpus = tightest_gpus(node, task);
      scratch_ = node;
      allocate(scratch_, task, gpus);
      delta = before - meter_->node_milli(scratch_);
    } else {
      // GPUs with the same milli left give the same delta: each level is tried once, on its
      // lowest-index GPU.
      delta = kNoScore;
      for (int g = 0; g < node.gpu_count(); ++g) {
        const int left = node.gpu_milli_free[static_cast<std::size_t>(g)];
        if (left < task.gpu_milli) continue;
        const auto first_at_level =
            std::find(node.gpu_milli_free.begin(), node.gpu_milli_free.end(), left);
        if (first_at_level - node.gpu_milli_free.begin() != g) continue;
        scratch_ = node;
        allocate(scratch_, task, {g});
        const double d = before - meter_->node_milli(scratch_);
        if (d > delta) {
          delta = d;
          gpus = {g};
        }
      }
    }
  }
  return std::floor(100.0 / (1.0 + std::exp(-delta / 1000.0)));
}

double SharedPlacer::score(std::size_t n, const SharedTask& task, std::vector<int>& gpus) {
  const SharedNode& node = nodes_[n];
  const double cpu_left = static_cast<double>(node.cpu_milli_free);
  const double gpu_left = static_cast<double>(node.gpu_milli_free_total());
  const double cpu = static_cast<double>(task.cpu_milli);
  const double gpu = static_cast<double>(task.gpu_milli_total());
  switch (kind_) {
    case SharedPlacementKind::kBestFit:
      return -(0.5 * (cpu_left - cpu) / cpu_norm_ + 0.5 * (gpu_left - gpu) / gpu_norm_);
    case SharedPlacementKind::kDotProduct:
      return -(cpu_left * cpu / (cpu_norm_ * cpu_norm_) + gpu_left * gpu / (gpu_norm_ * gpu_norm_));
    case SharedPlacementKind::kGpuPacking:
      gpus = tightest_gpus(node, task);
      return packing_score(node, task, gpus);
    case SharedPlacementKind::kGpuClustering: {
      if (task.gpus == 0) return 0.0;
      const std::uint64_t tags = demand_tags_[n];
      double base = 0.0;
      if (tags == 0)
        base = 25.0;
      else if ((tags & demand_bit(task)) != 0)
        base = std::popcount(tags) == 1 ? 75.0 : 50.0;
      return base + std::floor(25.0 * (gpu_norm_ - gpu_left) / gpu_norm_);
    }
    case SharedPlacementKind::kFgd: return fgd_score(n, task, gpus);
    case SharedPlacementKind::kRandomFit: break;
  }
  return kNoScore;
}

std::optional<SharedAllocation> SharedPlacer::choose_random(const SharedTask& task) {
  std::vector<std::size_t> feasible;
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    if (usable_[n] != 0 && fits(nodes_[n], task)) feasible.push_back(n);
  if (feasible.empty()) return std::nullopt;
  const std::size_t n = feasible[static_cast<std::size_t>(
      rng_.uniform_int(0, static_cast<std::int64_t>(feasible.size()) - 1))];
  SharedAllocation allocation{n, tightest_gpus(nodes_[n], task)};
  if (task.sharing()) {
    std::vector<int> able;
    for (int g = 0; g < nodes_[n].gpu_count(); ++g)
      if (nodes_[n].gpu_milli_free[static_cast<std::size_t>(g)] >= task.gpu_milli)
        able.push_back(g);
    allocation.gpus = {able[static_cast<std::size_t>(
        rng_.uniform_int(0, static_cast<std::int64_t>(able.size()) - 1))]};
  }
  return allocation;
}

std::optional<SharedAllocation> SharedPlacer::place(const SharedTask& task) {
  auto best = choose(task);
  if (best) commit(best->node, task, best->gpus);
  return best;
}

std::optional<SharedAllocation> SharedPlacer::choose(const SharedTask& task) {
  std::optional<SharedAllocation> best;
  if (kind_ == SharedPlacementKind::kRandomFit) {
    best = choose_random(task);
  } else {
    double best_score = kNoScore;
    std::vector<int> gpus;
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      if (usable_[n] == 0 || !fits(nodes_[n], task)) continue;
      gpus.clear();
      const double s = score(n, task, gpus);
      if (!best || s > best_score) {
        best_score = s;
        best = SharedAllocation{n, gpus};
      }
    }
    // Scores that do not choose GPUs leave them to the default (none for a CPU-only task).
    if (best && best->gpus.empty()) best->gpus = tightest_gpus(nodes_[best->node], task);
  }
  return best;
}

void SharedPlacer::commit(std::size_t n, const SharedTask& task, const std::vector<int>& gpus) {
  allocate(nodes_[n], task, gpus);
  if (task.gpus > 0) {
    const std::uint64_t bit = demand_bit(task);
    demand_tags_[n] |= bit;
    if (!demand_counts_.empty())
      ++demand_counts_[n * 64 + static_cast<std::size_t>(std::countr_zero(bit))];
  }
  fragmentation_[n] = -1.0;
}

void SharedPlacer::release(std::size_t n, const SharedTask& task, const std::vector<int>& gpus) {
  schedlab::release(nodes_[n], task, gpus);
  if (task.gpus > 0 && !demand_counts_.empty()) {
    const std::uint64_t bit = demand_bit(task);
    std::uint32_t& count = demand_counts_[n * 64 + static_cast<std::size_t>(std::countr_zero(bit))];
    SCHEDLAB_ASSERT(count > 0, "a released task's demand was held on its node");
    if (--count == 0) demand_tags_[n] &= ~bit;
  }
  fragmentation_[n] = -1.0;
}

}  // namespace schedlab
