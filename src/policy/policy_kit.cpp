#include "schedlab/policy_kit.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "schedlab/availability_profile.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/run_options.hpp"
#include "schedlab/trace_filter.hpp"

namespace schedlab {

namespace {

struct Cost {
  std::int64_t gpu_ms = std::numeric_limits<std::int64_t>::max();
  std::int64_t victims = std::numeric_limits<std::int64_t>::max();
  bool infinite() const { return victims == std::numeric_limits<std::int64_t>::max(); }
  auto operator<=>(const Cost&) const = default;
};

struct NodeItem {
  NodeIndex node = 0;
  std::size_t candidate = 0;  // index into the candidate list
  int gpus = 0;               // GPUs the candidate holds on this node
};

// Cheapest subset of `items` (all on one node) freeing at least `need` GPUs, as indexes into
// `items`, with its cost; infinite cost if none does.
std::pair<Cost, std::vector<std::size_t>> cheapest_cover(const std::vector<NodeItem>& items,
                                                         const std::vector<std::int64_t>& cost,
                                                         int need) {
  const auto width = static_cast<std::size_t>(need) + 1;
  std::vector<Cost> best(width);
  best[0] = Cost{0, 0};
  std::vector<std::uint8_t> took(items.size() * width, 0);
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (int j = need; j >= 1; --j) {
      const Cost& from = best[static_cast<std::size_t>(std::max(0, j - items[i].gpus))];
      if (from.infinite()) continue;
      const Cost with{from.gpu_ms + cost[items[i].candidate], from.victims + 1};
      if (with < best[static_cast<std::size_t>(j)]) {
        best[static_cast<std::size_t>(j)] = with;
        took[i * width + static_cast<std::size_t>(j)] = 1;
      }
    }
  }
  std::vector<std::size_t> chosen;
  if (best[width - 1].infinite()) return {best[width - 1], chosen};
  int j = need;
  for (std::size_t i = items.size(); i-- > 0 && j > 0;) {
    if (took[i * width + static_cast<std::size_t>(j)] == 0) continue;
    chosen.push_back(i);
    j = std::max(0, j - items[i].gpus);
  }
  return {best[width - 1], chosen};
}

std::optional<std::vector<JobIndex>> victims_on_one_node(const SchedContext& ctx, JobIndex job,
                                                         const std::vector<JobIndex>& candidates,
                                                         const std::vector<std::int64_t>& cost) {
  const Cluster& cluster = ctx.cluster();
  const GpuTypeIndex type = ctx.job(job).gpu_type();
  const int gpus = ctx.job(job).gpus();
  // Group the candidates' allocations by node (linear: a slot per node touched, in the order
  // met), so that only nodes that can beat the best so far are solved.
  struct NodeGroup {
    NodeIndex node = 0;
    std::int64_t cheapest_gpu_ms = std::numeric_limits<std::int64_t>::max();
    int held = 0;  // GPUs the candidates hold there
    std::size_t begin = 0;
    std::size_t count = 0;
  };
  thread_local std::vector<std::uint32_t> slot_of_node;  // [node] = group + 1; 0 = none
  if (slot_of_node.size() < cluster.node_count()) slot_of_node.assign(cluster.node_count(), 0);
  std::vector<NodeGroup> groups;
  auto for_each_item = [&](auto&& fn) {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      for (const auto& a : ctx.job(candidates[i]).placement()) {
        const Node& node = cluster.node(a.node);
        if (Cluster::type_matches(type, node.type) && node.gpus >= gpus)
          fn(NodeItem{a.node, i, a.gpu_count()});
      }
    }
  };
  for_each_item([&](const NodeItem& item) {
    std::uint32_t& slot = slot_of_node[item.node];
    if (slot == 0) {
      groups.push_back({item.node});
      slot = static_cast<std::uint32_t>(groups.size());
    }
    NodeGroup& g = groups[slot - 1];
    ++g.count;
    g.held += item.gpus;
    g.cheapest_gpu_ms = std::min(g.cheapest_gpu_ms, cost[item.candidate]);
  });
  std::size_t offset = 0;
  for (auto& g : groups) {
    g.begin = offset;
    offset += g.count;
    g.count = 0;
  }
  // Within a node, items stay in candidate order.
  std::vector<NodeItem> items(offset);
  for_each_item([&](const NodeItem& item) {
    NodeGroup& g = groups[slot_of_node[item.node] - 1];
    items[g.begin + g.count++] = item;
  });
  for (const auto& g : groups) slot_of_node[g.node] = 0;
  for (const auto& g : groups)
    if (g.held > 0 && cluster.node(g.node).free_gpus() >= gpus) return std::vector<JobIndex>{};
  // A node costs at least its cheapest candidate: visit nodes by that bound and stop once it
  // exceeds the best total found. The winner is the least (cost, victims, node index).
  std::sort(groups.begin(), groups.end(), [](const NodeGroup& a, const NodeGroup& b) {
    return std::tie(a.cheapest_gpu_ms, a.node) < std::tie(b.cheapest_gpu_ms, b.node);
  });
  Cost best_cost;
  NodeIndex best_node = 0;
  std::optional<std::vector<JobIndex>> best;
  std::vector<NodeItem> on_node;
  for (const auto& g : groups) {
    if (best && g.cheapest_gpu_ms > best_cost.gpu_ms) break;
    const int need = gpus - cluster.node(g.node).free_gpus();
    if (g.held < need) continue;
    on_node.assign(items.begin() + static_cast<std::ptrdiff_t>(g.begin),
                   items.begin() + static_cast<std::ptrdiff_t>(g.begin + g.count));
    auto [node_cost, chosen] = cheapest_cover(on_node, cost, need);
    if (node_cost.infinite()) continue;
    if (best && std::tie(best_cost, best_node) < std::tie(node_cost, g.node)) continue;
    best_cost = node_cost;
    best_node = g.node;
    best.emplace();
    for (std::size_t k : chosen) best->push_back(candidates[on_node[k].candidate]);
  }
  if (best) std::sort(best->begin(), best->end());
  return best;
}

std::optional<std::vector<JobIndex>> victims_across_nodes(const SchedContext& ctx, JobIndex job,
                                                          const std::vector<JobIndex>& candidates,
                                                          const std::vector<std::int64_t>& cost) {
  const GpuTypeIndex type = ctx.job(job).gpu_type();
  const int gpus = ctx.job(job).gpus();
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Cheapest per GPU first: cost_a / gpus_a < cost_b / gpus_b, compared without division.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const long double lhs = static_cast<long double>(cost[a]) * ctx.job(candidates[b]).gpus();
    const long double rhs = static_cast<long double>(cost[b]) * ctx.job(candidates[a]).gpus();
    if (lhs != rhs) return lhs < rhs;
    return candidates[a] < candidates[b];
  });
  WhatIf& what_if = ctx.what_if();
  std::vector<std::size_t> released;
  bool fits = false;
  for (std::size_t i : order) {
    what_if.release(candidates[i]);
    released.push_back(i);
    if (what_if.place(type, gpus)) {
      fits = true;
      break;
    }
  }
  std::vector<JobIndex> victims;
  if (fits) {
    // Most expensive first: undo each victim whose GPUs turn out not to be needed.
    std::vector<std::size_t> kept;
    for (auto it = released.rbegin(); it != released.rend(); ++it) {
      what_if.hold(ctx.job(candidates[*it]).placement());
      if (what_if.place(type, gpus)) continue;
      what_if.release(candidates[*it]);
      kept.push_back(*it);
    }
    released = kept;
    for (std::size_t i : kept) victims.push_back(candidates[i]);
  }
  for (std::size_t i : released) what_if.hold(ctx.job(candidates[i]).placement());
  if (!fits) return std::nullopt;
  std::sort(victims.begin(), victims.end());
  return victims;
}

}  // namespace

std::optional<std::vector<JobIndex>> choose_victims(const SchedContext& ctx, JobIndex job,
                                                    const std::vector<JobIndex>& all_candidates) {
  std::vector<JobIndex> whole_gpu_holders;
  const bool sharing_run = ctx.options().gpu_sharing_on();
  if (sharing_run) {
    whole_gpu_holders = all_candidates;
    std::erase_if(whole_gpu_holders, [&](JobIndex v) { return ctx.job(v).shares_a_gpu(); });
  }
  const std::vector<JobIndex>& candidates = sharing_run ? whole_gpu_holders : all_candidates;
  if (candidates.empty()) return std::nullopt;
  std::vector<std::int64_t> cost(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i)
    cost[i] = ctx.preemption_cost_gpu_ms(candidates[i]);
  const GpuTypeIndex type = ctx.job(job).gpu_type();
  if (ctx.job(job).gpus() <= ctx.cluster().max_node_gpus(type))
    return victims_on_one_node(ctx, job, candidates, cost);
  return victims_across_nodes(ctx, job, candidates, cost);
}

FailedSizes::FailedSizes(const Cluster& cluster) {
  int smallest_node = std::numeric_limits<int>::max();
  int largest_node = 0;
  for (const auto& group : cluster.groups()) {
    smallest_node = std::min(smallest_node, group.gpus_per_node);
    largest_node = std::max(largest_node, group.gpus_per_node);
  }
  if (smallest_node != largest_node) counted_up_to_gpus_ = smallest_node;
}

void FailedSizes::add(GpuTypeIndex type, int gpus) {
  if (gpus > counted_up_to_gpus_) return;
  for (auto& [t, smallest] : smallest_) {
    if (t != type) continue;
    smallest = std::min(smallest, gpus);
    return;
  }
  smallest_.emplace_back(type, gpus);
}

bool FailedSizes::rules_out(GpuTypeIndex type, int gpus) const {
  for (const auto& [t, smallest] : smallest_)
    if ((t == type || t == kAnyGpuType) && gpus >= smallest) return true;
  return false;
}

PlacementBound::PlacementBound(const Cluster& cluster)
    : free_gpus_(cluster.free_gpus()), one_node_up_to_gpus_(cluster.max_node_gpus(kAnyGpuType)) {
  for (GpuTypeIndex type = 0; type < cluster.gpu_types().size(); ++type)
    if (const int largest = cluster.max_node_gpus(type); largest > 0)
      one_node_up_to_gpus_ = std::min(one_node_up_to_gpus_, largest);
  for (const auto& group : cluster.groups())
    for (int k = group.gpus_per_node; k > most_free_on_a_node_; --k)
      if (!group.nodes_by_free[static_cast<std::size_t>(k)].empty()) {
        most_free_on_a_node_ = k;
        break;
      }
}

void param_error(const std::string& policy, const std::string& key, const std::string& value,
                 const std::string& expected) {
  throw ConfigError(
      fmt::format("--param {}={}: policy '{}' expects {}", key, value, policy, expected));
}

TimeMs param_seconds_ms(const PolicyParams& params, const std::string& policy,
                        const std::string& key, TimeMs fallback_ms) {
  const auto it = params.values().find(key);
  if (it == params.values().end()) return fallback_ms;
  // A plain number is read as before (exact decimal seconds); with a unit, as --filter reads it.
  auto ms = parse_seconds_ms(it->second);
  if (!ms) ms = parse_time_with_unit(it->second);
  if (!ms && time_with_unit_too_large(it->second))
    param_error(policy, key, it->second, fmt::format("a time of at most {}", kMaxTimeText));
  if (!ms || *ms < 0)
    param_error(policy, key, it->second,
                "a time >= 0 in seconds, or with a unit: 90s, 30m, 12h, 2d");
  return *ms;
}

std::vector<double> param_ascending_list(const PolicyParams& params, const std::string& policy,
                                         const std::string& key, const std::string& fallback) {
  const auto it = params.values().find(key);
  const std::string text = it == params.values().end() ? fallback : it->second;
  // ';' separates too, so a list can be one value of a sweep's comma-separated --param grid.
  const char* expected = "a list of ascending numbers > 0 separated by ',' or ';', e.g. 3600,36000";
  std::vector<double> out;
  std::string_view rest(text);
  while (true) {
    const auto comma = rest.find_first_of(",;");
    const auto value = parse_double(rest.substr(0, comma));
    if (!value || !(*value > 0) || (!out.empty() && !(*value > out.back())))
      param_error(policy, key, text, expected);
    out.push_back(*value);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace schedlab
