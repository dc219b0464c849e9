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
//   hold (most first; ties: lowest index) until together they can hold it on k nodes; when the
//   cluster has pods and the racks of one pod, taken the same way, can hold it on no more racks,
//   that pod's racks are used instead (the pod needing fewest racks; ties: lowest pod number).
//   In the chosen racks it takes every free GPU of the k-1 nodes with the most free GPUs (ties:
//   lowest index) and the rest on the best-fit node among the others.
// Cost: single-node jobs as pack (O(log n) per group); whole-node jobs O(wholly free nodes
// scanned + racks); other multi-node jobs O(racks x L + N log N), L the free levels (GPUs per
// node + 1), N the nodes of the chosen racks: racks are compared by the cluster's per-rack
// free-count histograms, never node by node (x pods for the pod choice). Reads only the
// cluster's free state, racks and pods.
#include <algorithm>
#include <array>
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
  // Free-count histogram: [f] = nodes with f free GPUs, f = 0..kMaxGpusPerNode.
  using Histogram = std::array<std::uint32_t, kMaxGpusPerNode + 1>;

  // GPUs the `count` largest nodes of `h` hold (fewer if it has fewer nodes with free GPUs).
  static std::int64_t top_sum(const std::uint32_t* h, int max_free, std::size_t count) {
    std::int64_t sum = 0;
    for (int f = max_free; f >= 1 && count > 0; --f) {
      const std::size_t n = std::min<std::size_t>(count, h[static_cast<std::size_t>(f)]);
      sum += static_cast<std::int64_t>(n) * f;
      count -= n;
    }
    return sum;
  }

  // GPUs left free on the last node when a rack's k-1 largest nodes are taken whole and the rest
  // goes onto the best-fit node among its others. Requires its k largest nodes to hold the job.
  static int histogram_leftover(const std::uint32_t* rack_hist, int max_free, std::size_t k,
                                int gpus) {
    Histogram h{};
    std::copy(rack_hist, rack_hist + max_free + 1, h.begin());
    int remaining = gpus;
    std::size_t whole = k - 1;
    for (int f = max_free; f >= 1 && whole > 0; --f) {
      const std::size_t n = std::min<std::size_t>(whole, h[static_cast<std::size_t>(f)]);
      remaining -= static_cast<int>(n) * f;
      h[static_cast<std::size_t>(f)] -= static_cast<std::uint32_t>(n);
      whole -= n;
    }
    for (int f = std::max(remaining, 1); f <= max_free; ++f)
      if (h[static_cast<std::size_t>(f)] > 0) return f - remaining;
    return kMaxGpusPerNode;
  }

  // Candidates of the given racks' nodes that have free GPUs of `type`, in more_free_first order.
  static std::vector<Candidate> rack_candidates(const Cluster& cluster, GpuTypeIndex type,
                                                const std::vector<std::uint32_t>& racks) {
    std::vector<Candidate> out;
    for (const std::uint32_t rack : racks)
      for (const NodeIndex node : cluster.rack_nodes(rack)) {
        const Node& n = cluster.node(node);
        if (Cluster::type_matches(type, n.type) && n.free_gpus() > 0)
          out.push_back({node, n.free_gpus(), rack});
      }
    std::sort(out.begin(), out.end(), more_free_first);
    return out;
  }

  // Multi-node jobs. Racks are compared through their free-count histograms (kept by the
  // cluster), so the cost is O(racks x free levels) plus the chosen racks' nodes, whatever the
  // number of nodes with free GPUs.
  static std::optional<Placement> place_multi_node(const Cluster& cluster, GpuTypeIndex type,
                                                   int gpus) {
    if (auto whole = place_whole_nodes(cluster, type, gpus)) return whole;
    const int max_free = cluster.max_node_gpus(type);
    struct RackStats {
      std::uint32_t rack = 0;
      const std::uint32_t* hist = nullptr;  // the cluster's histogram of the rack for `type`
      std::int64_t top_k = 0;               // GPUs its k largest nodes hold
      std::int64_t total = 0;               // all its free GPUs of the type
    };
    std::vector<RackStats> racks;
    Histogram all{};
    for (std::uint32_t r = 0; r < cluster.rack_count(); ++r) {
      const std::uint32_t* h = cluster.rack_free_histogram(r, type);
      if (h == nullptr) return std::nullopt;  // no nodes of the type at all
      std::int64_t total = 0;
      for (int f = 1; f <= max_free; ++f) {
        total += static_cast<std::int64_t>(h[f]) * f;
        all[static_cast<std::size_t>(f)] += h[f];
      }
      if (total > 0) racks.push_back({r, h, 0, total});
    }
    // The fewest nodes that can hold the job: the ones with the most free GPUs.
    std::size_t k = 0;
    std::int64_t held = 0;
    for (int f = max_free; f >= 1 && held < gpus; --f)
      for (std::uint32_t n = all[static_cast<std::size_t>(f)]; n > 0 && held < gpus; --n) {
        held += f;
        ++k;
      }
    if (held < gpus) return std::nullopt;
    for (auto& r : racks) r.top_k = top_sum(r.hist, max_free, k);

    // One rack if possible: best fit.
    const RackStats* best = nullptr;
    int best_leftover = 0;
    for (const auto& r : racks) {
      if (r.top_k < gpus) continue;
      const int leftover = histogram_leftover(r.hist, max_free, k, gpus);
      if (!best || leftover < best_leftover ||
          (leftover == best_leftover && r.total < best->total)) {
        best = &r;
        best_leftover = leftover;
      }
    }
    if (best) return take(cluster, rack_candidates(cluster, type, {best->rack}), k, gpus);

    std::vector<const RackStats*> order;
    order.reserve(racks.size());
    for (const auto& r : racks) order.push_back(&r);
    std::sort(order.begin(), order.end(), [](const RackStats* a, const RackStats* b) {
      return a->top_k != b->top_k ? a->top_k > b->top_k : a->rack < b->rack;
    });
    // Racks in `order` (those of `pod` only, unless kAnyPod) until their k largest nodes hold
    // the job; the racks taken, empty if they never do.
    constexpr std::uint32_t kAnyPod = Cluster::kNoPod - 1;
    auto gather = [&](std::uint32_t pod) {
      std::vector<std::uint32_t> taken;
      Histogram merged{};
      for (const RackStats* r : order) {
        if (pod != kAnyPod && cluster.pod_of_rack(r->rack) != pod) continue;
        taken.push_back(r->rack);
        for (int f = 1; f <= max_free; ++f) merged[static_cast<std::size_t>(f)] += r->hist[f];
        if (top_sum(merged.data(), max_free, k) >= gpus) return taken;
      }
      return std::vector<std::uint32_t>{};
    };
    std::vector<std::uint32_t> chosen = gather(kAnyPod);
    // Among equally many racks, one pod: the pod needing the fewest racks, if it needs no more
    // than the racks taken across pods (ties: lowest pod number).
    if (cluster.pod_count() > 1 && !chosen.empty()) {
      std::vector<bool> pod_seen(cluster.pod_count(), false);
      std::vector<std::uint32_t> best_pod_racks;
      for (const RackStats* r : order) {
        const std::uint32_t pod = cluster.pod_of_rack(r->rack);
        if (pod == Cluster::kNoPod || pod_seen[pod]) continue;
        pod_seen[pod] = true;
        std::vector<std::uint32_t> taken = gather(pod);
        if (taken.empty() || taken.size() > chosen.size()) continue;
        if (best_pod_racks.empty() || taken.size() < best_pod_racks.size() ||
            (taken.size() == best_pod_racks.size() &&
             pod < cluster.pod_of_rack(best_pod_racks.front())))
          best_pod_racks = std::move(taken);
      }
      if (!best_pod_racks.empty()) chosen = std::move(best_pod_racks);
    }
    return take(cluster, rack_candidates(cluster, type, chosen), k, gpus);
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

SCHEDLAB_REGISTER_PLACEMENT(PlacementInfo{
    "topology", "fewest nodes, then fewest racks, then best fit (docs/cluster.md)",
    [] { return std::make_unique<TopologyPlacement>(); }})

}  // namespace schedlab
