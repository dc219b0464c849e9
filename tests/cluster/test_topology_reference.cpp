// The topology placement of multi-node jobs against a direct, node-by-node reading of its rule
// (docs/cluster.md, "--placement topology") on random cluster states: racks, pods, GPU types,
// node sizes, partly allocated and down nodes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "schedlab/cluster.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/random.hpp"

using namespace schedlab;

namespace {

struct Pick {
  NodeIndex node = 0;
  int gpus = 0;
  bool operator==(const Pick&) const = default;
};

struct Free {
  NodeIndex node = 0;
  int free = 0;
  std::uint32_t rack = 0;
};

bool more_free_first(const Free& a, const Free& b) {
  return a.free != b.free ? a.free > b.free : a.node < b.node;
}

// Nodes of `type` with free GPUs, in (most free, lowest index) order.
std::vector<Free> free_nodes(const Cluster& c, GpuTypeIndex type) {
  std::vector<Free> out;
  for (NodeIndex n = 0; n < c.node_count(); ++n)
    if (Cluster::type_matches(type, c.node(n).type) && c.node(n).free_gpus() > 0)
      out.push_back({n, c.node(n).free_gpus(), c.node(n).rack});
  std::sort(out.begin(), out.end(), more_free_first);
  return out;
}

std::int64_t top(const std::vector<Free>& sorted, std::size_t k) {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < k && i < sorted.size(); ++i) sum += sorted[i].free;
  return sum;
}

// The first k-1 whole, the rest on the fewest free GPUs that hold it (ties: lowest index).
std::optional<std::vector<Pick>> take(const std::vector<Free>& sorted, std::size_t k, int gpus) {
  std::vector<Pick> out;
  int remaining = gpus;
  for (std::size_t i = 0; i + 1 < k; ++i) {
    out.push_back({sorted[i].node, sorted[i].free});
    remaining -= sorted[i].free;
  }
  const Free* last = nullptr;
  for (std::size_t i = k - 1; i < sorted.size(); ++i)
    if (sorted[i].free >= remaining &&
        (!last || sorted[i].free < last->free ||
         (sorted[i].free == last->free && sorted[i].node < last->node)))
      last = &sorted[i];
  if (!last || remaining <= 0) return std::nullopt;
  out.push_back({last->node, remaining});
  std::sort(out.begin(), out.end(), [](const Pick& a, const Pick& b) { return a.node < b.node; });
  return out;
}

std::optional<std::vector<Pick>> reference(const Cluster& c, GpuTypeIndex type, int gpus) {
  if (c.free_gpus_of(type) < gpus) return std::nullopt;
  // Whole nodes of the largest size s, k = gpus / s of them in the first rack (in node order)
  // that gathers k.
  const int s = c.max_node_gpus(type);
  if (gpus % s == 0) {
    const auto k = static_cast<std::size_t>(gpus / s);
    std::map<std::uint32_t, std::vector<NodeIndex>> whole;
    for (NodeIndex n = 0; n < c.node_count(); ++n) {
      const Node& node = c.node(n);
      if (!Cluster::type_matches(type, node.type) || node.gpus != s || node.free_gpus() != s)
        continue;
      auto& nodes = whole[node.rack];
      nodes.push_back(n);
      if (nodes.size() == k) {
        std::vector<Pick> out;
        for (const NodeIndex m : nodes) out.push_back({m, s});
        return out;
      }
    }
  }
  const std::vector<Free> all = free_nodes(c, type);
  std::size_t k = 0;
  while (top(all, k) < gpus) ++k;
  std::map<std::uint32_t, std::vector<Free>> by_rack;
  for (const auto& f : all) by_rack[f.rack].push_back(f);
  // One rack: the fewest GPUs left on the last node, then fewer free GPUs, then lowest index.
  std::optional<std::uint32_t> best;
  std::tuple<int, std::int64_t> best_key{};
  for (const auto& [rack, nodes] : by_rack) {
    if (top(nodes, k) < gpus) continue;
    const auto picks = *take(nodes, k, gpus);
    int leftover = 0;
    for (const auto& p : picks)
      for (const auto& f : nodes)
        if (f.node == p.node) leftover = std::max(leftover, f.free - p.gpus);
    std::int64_t total = 0;
    for (const auto& f : nodes) total += f.free;
    if (!best || std::make_tuple(leftover, total) < best_key) {
      best = rack;
      best_key = {leftover, total};
    }
  }
  if (best) return take(by_rack[*best], k, gpus);
  // Racks by what their k largest nodes hold (most first, then index) until they hold it;
  // then the one pod that does it on no more racks (fewest racks, then lowest pod number).
  std::vector<std::uint32_t> order;
  for (const auto& [rack, nodes] : by_rack) order.push_back(rack);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return top(by_rack[a], k) > top(by_rack[b], k);
  });
  auto gather = [&](std::optional<std::uint32_t> pod) {
    std::vector<std::uint32_t> racks;
    std::vector<Free> union_nodes;
    for (const std::uint32_t r : order) {
      if (pod && c.pod_of_rack(r) != *pod) continue;
      racks.push_back(r);
      union_nodes.insert(union_nodes.end(), by_rack[r].begin(), by_rack[r].end());
      std::sort(union_nodes.begin(), union_nodes.end(), more_free_first);
      if (top(union_nodes, k) >= gpus) return std::make_pair(racks, union_nodes);
    }
    return std::make_pair(std::vector<std::uint32_t>{}, std::vector<Free>{});
  };
  auto chosen = gather(std::nullopt);
  if (c.pod_count() > 1) {
    std::optional<std::pair<std::vector<std::uint32_t>, std::vector<Free>>> in_pod;
    for (std::uint32_t pod = 0; pod < c.pod_count(); ++pod) {
      auto candidate = gather(pod);
      if (candidate.first.empty() || candidate.first.size() > chosen.first.size()) continue;
      if (!in_pod || candidate.first.size() < in_pod->first.size()) in_pod = candidate;
    }
    if (in_pod) chosen = *in_pod;
  }
  return take(chosen.second, k, gpus);
}

std::vector<Pick> picks_of(const Placement& p) {
  std::vector<Pick> out;
  for (const auto& a : p) out.push_back({a.node, a.gpu_count()});
  return out;
}

std::string random_cluster_json(Rng& rng) {
  const bool pods = rng.uniform() < 0.6;
  std::string groups;
  const auto group_count = rng.uniform_int(2, 10);
  for (std::int64_t g = 0; g < group_count; ++g) {
    const auto rack = rng.uniform_int(0, 5);
    const int sizes[] = {2, 4, 8, 8};
    groups +=
        fmt::format(R"({}{{"count": {}, "gpus_per_node": {}, "gpu_type": "{}", "rack": "r{}"{}}})",
                    groups.empty() ? "" : ", ", rng.uniform_int(1, 5), sizes[rng.uniform_int(0, 3)],
                    rng.uniform() < 0.7 ? "A100" : "H100", rack,
                    pods ? fmt::format(R"(, "pod": "p{}")", rack % 3) : "");
  }
  return R"({"node_groups": [)" + groups + "]}";
}

}  // namespace

TEST_CASE("topology placement of multi-node jobs equals the rule read node by node",
          "[cluster-model][topology]") {
  Rng rng(2026);
  const auto topology = make_placement("topology");
  int compared = 0;
  int spilled = 0;
  for (int round = 0; round < 300; ++round) {
    const std::string json = random_cluster_json(rng);
    Cluster cluster(parse_cluster_json_text(json, "random.json"));
    // Some nodes down, some GPUs held.
    for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
      const double u = rng.uniform();
      if (u < 0.1) {
        cluster.set_node_state(n, NodeState::kDown);
      } else if (u < 0.6) {
        const GpuMask held = static_cast<GpuMask>(
            rng.uniform_int(1, static_cast<std::int64_t>(cluster.node(n).all_mask())));
        cluster.allocate({{n, held & cluster.node(n).all_mask()}});
      }
    }
    const auto type_count = static_cast<GpuTypeIndex>(cluster.gpu_types().size());
    for (int job = 0; job < 6; ++job) {
      const GpuTypeIndex type = rng.uniform() < 0.6
                                    ? kAnyGpuType
                                    : static_cast<GpuTypeIndex>(rng.uniform_int(0, type_count - 1));
      const int largest = cluster.max_node_gpus(type);
      const std::int64_t free = cluster.free_gpus_of(type);
      if (largest < 1 || free <= largest) continue;
      const int gpus = static_cast<int>(rng.uniform_int(largest + 1, free));
      INFO(json);
      INFO("type " << type << ", " << gpus << " GPUs");
      const auto expected = reference(cluster, type, gpus);
      const auto actual = topology->place(cluster, type, gpus);
      REQUIRE(expected.has_value() == actual.has_value());
      if (!actual) continue;
      CHECK(picks_of(*actual) == *expected);
      CHECK(cluster.can_allocate(*actual));
      std::set<std::uint32_t> racks;
      for (const auto& a : *actual) racks.insert(cluster.node(a.node).rack);
      spilled += racks.size() > 1 ? 1 : 0;
      ++compared;
    }
  }
  // The random states exercise every path, spilling over racks included.
  CHECK(compared > 300);
  CHECK(spilled > 30);
}
