#include "schedlab/inflate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/gpu_fragmentation.hpp"
#include "schedlab/random.hpp"

namespace schedlab {

namespace {

void check_options(const InflateOptions& options) {
  if (options.placements.empty()) throw ConfigError("inflate: no placement given");
  if (options.seeds.empty()) throw ConfigError("inflate: no seed given");
  if (!(options.inflation >= 1.0 && options.inflation <= 10.0))
    throw ConfigError(fmt::format(
        "inflate: inflation {} is outside [1, 10] (results are read at 100%)", options.inflation));
  if (!(options.coverage > 0.0 && options.coverage <= 1.0))
    throw ConfigError(fmt::format("inflate: coverage {} is outside (0, 1]", options.coverage));
}

// The arrivals of one replicate (contract in inflate.hpp).
std::vector<const SharedTask*> arrivals(const std::vector<SharedTask>& tasks,
                                        std::int64_t limit_milli, Rng& rng) {
  std::vector<const SharedTask*> order;
  order.reserve(tasks.size() * 2);
  for (const auto& task : tasks) order.push_back(&task);
  for (std::size_t i = order.size(); i > 1; --i)
    std::swap(
        order[i - 1],
        order[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(i) - 1))]);
  std::int64_t requested = 0;
  std::size_t kept = 0;
  while (kept < order.size() && requested + order[kept]->gpu_milli_total() <= limit_milli)
    requested += order[kept++]->gpu_milli_total();
  if (kept < order.size()) {
    order.resize(kept);
    return order;
  }
  const auto last = static_cast<std::int64_t>(tasks.size()) - 1;
  while (true) {
    const SharedTask& task = tasks[static_cast<std::size_t>(rng.uniform_int(0, last))];
    if (requested + task.gpu_milli_total() > limit_milli) return order;
    requested += task.gpu_milli_total();
    order.push_back(&task);
  }
}

InflatePoint snapshot(const std::vector<SharedNode>& nodes, SharedPlacer& placer, int percent,
                      std::int64_t arrived_milli, std::int64_t allocated_milli,
                      std::uint64_t tasks_arrived, std::uint64_t tasks_unplaced) {
  InflatePoint point;
  point.arrived_percent = percent;
  point.arrived_milli = arrived_milli;
  point.allocated_milli = allocated_milli;
  point.tasks_arrived = tasks_arrived;
  point.tasks_unplaced = tasks_unplaced;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    point.fragmentation_milli += placer.node_fragmentation_milli(n);
    for (const int left : nodes[n].gpu_milli_free) {
      if (left == kMilliPerGpu)
        ++point.gpus_idle;
      else if (left > 0)
        ++point.gpus_partly_used;
    }
  }
  return point;
}

InflateReplicate run_replicate(const SharedCluster& cluster, const std::vector<SharedTask>& tasks,
                               FragmentationMeter& meter, SharedPlacementKind kind,
                               std::uint64_t seed, double inflation) {
  const auto started = std::chrono::steady_clock::now();
  const std::int64_t capacity = cluster.gpu_count() * kMilliPerGpu;
  const auto limit =
      static_cast<std::int64_t>(std::floor(inflation * static_cast<double>(capacity)));
  const int last_percent = static_cast<int>(std::floor(inflation * 100.0 + 1e-9));
  Rng rng(seed);
  const auto order = arrivals(tasks, limit, rng);
  std::vector<SharedNode> nodes = cluster.nodes;
  SharedPlacer placer(kind, nodes, &meter, rng);
  InflateReplicate replicate;
  replicate.placement = kind;
  replicate.seed = seed;
  std::int64_t arrived = 0;
  std::int64_t allocated = 0;
  std::uint64_t count = 0;
  std::uint64_t unplaced = 0;
  int next_percent = 0;
  const auto record_reached = [&] {
    while (next_percent <= last_percent &&
           arrived * 100 >= static_cast<std::int64_t>(next_percent) * capacity) {
      replicate.points.push_back(
          snapshot(nodes, placer, next_percent, arrived, allocated, count, unplaced));
      ++next_percent;
    }
  };
  record_reached();
  for (const SharedTask* task : order) {
    arrived += task->gpu_milli_total();
    ++count;
    if (const auto allocation = placer.place(*task)) {
      allocated += task->gpu_milli_total();
      check_node_invariants(nodes[allocation->node]);
    } else {
      ++unplaced;
    }
    record_reached();
  }
  // Percents the arrivals never reached (the last task would have passed the limit) repeat the
  // final state, so every replicate has the same points.
  while (next_percent <= last_percent) {
    replicate.points.push_back(
        snapshot(nodes, placer, next_percent, arrived, allocated, count, unplaced));
    ++next_percent;
  }
  replicate.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return replicate;
}

}  // namespace

InflateResult run_inflate(const SharedCluster& cluster, const std::vector<SharedTask>& tasks,
                          const InflateOptions& options,
                          const std::function<void(const InflateReplicate&)>& progress) {
  check_options(options);
  if (cluster.gpu_count() == 0) throw ConfigError("inflate: the cluster has no GPUs");
  // Without a GPU request the arrivals would never reach the capacity.
  if (std::none_of(tasks.begin(), tasks.end(),
                   [](const SharedTask& task) { return task.gpu_milli_total() > 0; }))
    throw InputError("inflate: no pod asks for a GPU");
  FragmentationMeter meter(task_mix(tasks, options.coverage));
  InflateResult result;
  result.nodes_source = cluster.source;
  result.nodes = cluster.nodes.size();
  result.gpus = cluster.gpu_count();
  result.pods = tasks.size();
  result.task_classes = meter.mix().classes.size();
  std::size_t covered = 0;
  for (const auto& c : meter.mix().classes) covered += c.count;
  result.task_mix_coverage = static_cast<double>(covered) / static_cast<double>(tasks.size());
  result.options = options;
  for (const auto kind : options.placements)
    for (const auto seed : options.seeds) {
      result.replicates.push_back(
          run_replicate(cluster, tasks, meter, kind, seed, options.inflation));
      if (progress) progress(result.replicates.back());
    }
  return result;
}

const InflatePoint& point_at(const InflateReplicate& replicate, int percent) {
  SCHEDLAB_ASSERT(percent >= 0 && static_cast<std::size_t>(percent) < replicate.points.size(),
                  fmt::format("no point at {}% arrived", percent));
  return replicate.points[static_cast<std::size_t>(percent)];
}

}  // namespace schedlab
