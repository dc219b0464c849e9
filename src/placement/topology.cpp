// Topology-aware placement ("topology"): minimise the nodes a job spans, then the racks, then
// the GPUs left over (best fit). docs/cluster.md has the rule with examples.
//
// - A job that fits on one node of its type goes onto one node chosen as by pack (the fewest
//   free GPUs that fit; ties: lowest index). Inside it, the job takes the GPUs of one NVLink
//   domain when one has room (the domain with the fewest free GPUs that fits; ties: lowest),
//   else the node's lowest free GPUs.
// - A larger job that is a multiple of the largest node size s of its type goes, when some rack
//   has k = gpus / s wholly free nodes of size s, onto the first k of them in the first rack (in
//   node order) to gather k: the best possible placement.
// - Otherwise it spans the fewest nodes possible: k, the smallest number of nodes whose free
//   GPUs can hold it. If a single rack can hold it on k nodes, it goes into one such rack: the
//   one leaving the fewest free GPUs on its last node, then the rack with fewer free GPUs, then
//   the lowest rack index. Otherwise racks are added in order of what their k largest nodes
//   hold (most first; ties: lowest index) until together they can hold it on k nodes. In the
//   chosen racks it takes every free GPU of the k-1 nodes with the most free GPUs (ties: lowest
//   index) and the rest on the best-fit node among the others.
// Cost: single-node jobs as pack (O(log n) per group); whole-node jobs O(wholly free nodes
// scanned + racks); other multi-node jobs O(F + racks) with F the nodes of the type that have
// free GPUs (O(F log F) when no single rack holds the job). Reads only the cluster's free state and
// racks.
#include <algorithm>
#include <bit>

#include "schedlab/placement_strategy.hpp"

namespace schedlab {
namespace {

struct Candidate {
  NodeIndex node = 0;
  int free = 0;
  std::uint32_t rack = 0;
};

// Free GPUs of `node` for `count` GPUs, inside one NVLink domain when one has room.
GpuMask domain_aware_bits(const Cluster& cluster, NodeIndex node, int count) {
  const Node& n = cluster.node(node);
  const int domain = cluster.groups()[n.group].nvlink_domain_gpus;
  if (domain >= n.gpus || count > domain)
    return placement_kit::lowest_free_bits(n.free_mask, count);
  const GpuMask domain_mask = domain >= 64 ? ~GpuMask{0} : ((GpuMask{1} << domain) - 1);
  int best_free = kMaxGpusPerNode + 1;
  int best = -1;
  for (int d = 0; d * domain < n.gpus; ++d) {
    const int free = std::popcount(n.free_mask & (domain_mask << (d * domain)));
    if (free >= count && free < best_free) {
      best_free = free;
      best = d;
    }
  }
  if (best < 0) return placement_kit::lowest_free_bits(n.free_mask, count);
  return placement_kit::lowest_free_bits(n.free_mask & (domain_mask << (best * domain)), count);
}

bool more_free_first(const Candidate& a, const Candidate& b) {
  return a.free != b.free ? a.free > b.free : a.node < b.node;
}

class TopologyPlacement final : public PlacementStrategy {
 public:
  const char* name() const override { return "topology"; }

  std::optional<Placement> place(const Cluster& cluster, GpuTypeIndex type,
                                 int gpus) const override {
    if (gpus < 1 || cluster.free_gpus_of(type) < gpus) return std::nullopt;
    if (gpus <= cluster.max_node_gpus(type)) {
      const auto node = placement_kit::best_fit_node(cluster, type, gpus);
      if (!node) return std::nullopt;
      return Placement{{*node, domain_aware_bits(cluster, *node, gpus)}};
    }
    return place_multi_node(cluster, type, gpus);
  }

 private:
  static std::optional<Placement> place_multi_node(const Cluster& cluster, GpuTypeIndex type,
                                                   int gpus) {
    if (auto whole = place_whole_nodes(cluster, type, gpus)) return whole;
    // Candidates in (most free, lowest index) order without sorting: free counts descending,
    // then groups in node order, then nodes in index order.
    std::vector<Candidate> candidates;
    for (int k = cluster.max_node_gpus(type); k >= 1; --k) {
      for (const auto& group : cluster.groups()) {
        if (!Cluster::type_matches(type, group.type) || group.gpus_per_node < k) continue;
        const IndexSet& bucket = group.nodes_by_free[static_cast<std::size_t>(k)];
        for (std::uint32_t local = bucket.first(); local != IndexSet::npos;
             local = bucket.next(local + 1)) {
          const NodeIndex node = group.first_node + local;
          candidates.push_back({node, k, cluster.node(node).rack});
        }
      }
    }
    // The fewest nodes that can hold the job: the ones with the most free GPUs.
    std::size_t k = 0;
    std::int64_t held = 0;
    while (k < candidates.size() && held < gpus) held += candidates[k++].free;
    if (held < gpus) return std::nullopt;

    // Candidates by rack (a counting sort, stable), each rack's in (most free, lowest index) order.
    std::vector<std::uint32_t> rack_begin(cluster.rack_count() + 1, 0);
    for (const auto& c : candidates) ++rack_begin[c.rack + 1];
    for (std::size_t r = 0; r < cluster.rack_count(); ++r) rack_begin[r + 1] += rack_begin[r];
    std::vector<Candidate> by_rack(candidates.size());
    {
      std::vector<std::uint32_t> next(rack_begin.begin(), rack_begin.end() - 1);
      for (const auto& c : candidates) by_rack[next[c.rack]++] = c;
    }
    struct RackRange {
      std::uint32_t rack = 0;
      std::size_t begin = 0;
      std::size_t end = 0;
      std::int64_t top_k = 0;  // GPUs its k largest nodes hold
      std::int64_t total = 0;  // all its free GPUs of the type
    };
    std::vector<RackRange> racks;
    for (std::size_t i = 0; i < by_rack.size();) {
      RackRange r{by_rack[i].rack, i, i, 0, 0};
      while (i < by_rack.size() && by_rack[i].rack == r.rack) {
        if (i - r.begin < k) r.top_k += by_rack[i].free;
        r.total += by_rack[i].free;
        ++i;
      }
      r.end = i;
      racks.push_back(r);
    }

    // One rack if possible: best fit.
    const RackRange* best = nullptr;
    int best_leftover = 0;
    for (const auto& r : racks) {
      if (r.top_k < gpus) continue;
      const int leftover =
          last_node_leftover(by_rack.data() + r.begin, by_rack.data() + r.end, k, gpus);
      if (!best || leftover < best_leftover ||
          (leftover == best_leftover && r.total < best->total)) {
        best = &r;
        best_leftover = leftover;
      }
    }
    std::vector<Candidate> chosen;
    if (best) {
      chosen.assign(by_rack.begin() + static_cast<std::ptrdiff_t>(best->begin),
                    by_rack.begin() + static_cast<std::ptrdiff_t>(best->end));
    } else {
      std::vector<const RackRange*> order;
      for (const auto& r : racks) order.push_back(&r);
      std::sort(order.begin(), order.end(), [](const RackRange* a, const RackRange* b) {
        return a->top_k != b->top_k ? a->top_k > b->top_k : a->rack < b->rack;
      });
      for (const RackRange* r : order) {
        chosen.insert(chosen.end(), by_rack.begin() + static_cast<std::ptrdiff_t>(r->begin),
                      by_rack.begin() + static_cast<std::ptrdiff_t>(r->end));
        std::sort(chosen.begin(), chosen.end(), more_free_first);
        std::int64_t top = 0;
        for (std::size_t i = 0; i < k && i < chosen.size(); ++i) top += chosen[i].free;
        if (top >= gpus) break;
      }
    }
    return take(cluster, chosen, k, gpus);
  }

  // Whole-node fast path. When the job is a multiple of the largest node size s of its type, k =
  // gpus / s wholly free nodes of size s in one rack is the best possible placement (fewest
  // nodes, one rack, nothing left over): take the first rack, in node order, that gathers k of
  // them. Cost O(wholly free nodes scanned + racks); nullopt when no rack has k.
  static std::optional<Placement> place_whole_nodes(const Cluster& cluster, GpuTypeIndex type,
                                                    int gpus) {
    const int size = cluster.max_node_gpus(type);
    if (size < 1 || gpus % size != 0) return std::nullopt;
    const auto k = static_cast<std::uint32_t>(gpus / size);
    std::uint64_t whole = 0;
    for (const auto& group : cluster.groups())
      if (Cluster::type_matches(type, group.type) && group.gpus_per_node == size)
        whole += group.nodes_by_free[static_cast<std::size_t>(size)].size();
    if (whole < k) return std::nullopt;
    std::vector<std::uint32_t> gathered(cluster.rack_count(), 0);
    for (const auto& group : cluster.groups()) {
      if (!Cluster::type_matches(type, group.type) || group.gpus_per_node != size) continue;
      const IndexSet& bucket = group.nodes_by_free[static_cast<std::size_t>(size)];
      for (std::uint32_t local = bucket.first(); local != IndexSet::npos;
           local = bucket.next(local + 1)) {
        const std::uint32_t rack = cluster.node(group.first_node + local).rack;
        if (++gathered[rack] < k) continue;
        // Rack `rack` holds k wholly free nodes: its first k in node order.
        Placement placement;
        for (const auto& g : cluster.groups()) {
          if (!Cluster::type_matches(type, g.type) || g.gpus_per_node != size) continue;
          const IndexSet& b = g.nodes_by_free[static_cast<std::size_t>(size)];
          for (std::uint32_t l = b.first(); l != IndexSet::npos && placement.size() < k;
               l = b.next(l + 1)) {
            const NodeIndex node = g.first_node + l;
            if (cluster.node(node).rack == rack)
              placement.push_back({node, cluster.node(node).all_mask()});
          }
        }
        return placement;
      }
    }
    return std::nullopt;
  }

  // GPUs left free on the last node when taking the first k-1 of `[first, last)` whole and the
  // remainder on the best-fit node among the rest. [first, last) is in more_free_first order and
  // its k largest nodes hold the job.
  static int last_node_leftover(const Candidate* first, const Candidate* last, std::size_t k,
                                int gpus) {
    int remaining = gpus;
    for (std::size_t i = 0; i + 1 < k; ++i) remaining -= first[i].free;
    int leftover = kMaxGpusPerNode;
    for (const Candidate* c = first + (k - 1); c != last && c->free >= remaining; ++c)
      leftover = c->free - remaining;  // descending frees: the last that fits fits best
    return leftover;
  }

  static std::optional<Placement> take(const Cluster& cluster, const std::vector<Candidate>& chosen,
                                       std::size_t k, int gpus) {
    Placement placement;
    int remaining = gpus;
    for (std::size_t i = 0; i + 1 < k; ++i) {
      placement.push_back({chosen[i].node, cluster.node(chosen[i].node).free_mask});
      remaining -= chosen[i].free;
    }
    // Best fit for the remainder: the fewest free GPUs that hold it (ties: lowest index).
    const Candidate* last = nullptr;
    for (std::size_t i = k - 1; i < chosen.size() && chosen[i].free >= remaining; ++i) {
      if (!last || chosen[i].free < last->free ||
          (chosen[i].free == last->free && chosen[i].node < last->node))
        last = &chosen[i];
    }
    if (!last || remaining <= 0) return std::nullopt;
    placement.push_back({last->node, domain_aware_bits(cluster, last->node, remaining)});
    std::sort(placement.begin(), placement.end(),
              [](const NodeAllocation& a, const NodeAllocation& b) { return a.node < b.node; });
    return placement;
  }
};

}  // namespace

std::unique_ptr<PlacementStrategy> make_topology_placement() {
  return std::make_unique<TopologyPlacement>();
}

}  // namespace schedlab
