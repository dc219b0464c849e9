#include <catch2/catch.hpp>

#include "schedlab/cluster.hpp"
#include "schedlab/placement_strategy.hpp"

using namespace schedlab;

namespace {

Placement place(const Cluster& cluster, int gpus, GpuTypeIndex type = kAnyGpuType) {
  const auto placement = make_placement("pack")->place(cluster, type, gpus);
  return placement ? *placement : Placement{};
}

}  // namespace

TEST_CASE("pack: a single-node job goes to the node with the fewest free GPUs that fits",
          "[placement][pack]") {
  Cluster cluster(parse_cluster_spec("4x8"));
  cluster.allocate({{0, 0xF0}});  // node 0: 4 free (GPUs 0-3)
  cluster.allocate({{1, 0x3F}});  // node 1: 2 free (GPUs 6-7)
  cluster.allocate({{3, 0x3F}});  // node 3: 2 free
  // 2 GPUs: nodes 1 and 3 both have exactly 2 free; the lower index wins.
  CHECK(place(cluster, 2) == Placement{{1, 0xC0}});
  // 3 GPUs: only node 0 (4 free) and node 2 (8 free) fit; node 0 is the tighter fit.
  CHECK(place(cluster, 3) == Placement{{0, 0x07}});
  // 5 GPUs: only node 2.
  CHECK(place(cluster, 5) == Placement{{2, 0x1F}});
  // 8 GPUs: node 2 is the only whole node.
  CHECK(place(cluster, 8) == Placement{{2, 0xFF}});
  cluster.allocate({{2, 0x01}});
  CHECK(place(cluster, 8).empty());
}

TEST_CASE("pack: larger jobs take whole free nodes plus one best-fit node", "[placement][pack]") {
  Cluster cluster(parse_cluster_spec("4x8"));
  // All free: 20 GPUs = nodes 0 and 1 whole, then 4 on the best fit (node 2, lowest index).
  CHECK(place(cluster, 20) == Placement{{0, 0xFF}, {1, 0xFF}, {2, 0x0F}});
  // With node 3 partly used, the remainder prefers it (fewest free that fits).
  cluster.allocate({{3, 0x0F}});
  CHECK(place(cluster, 20) == Placement{{0, 0xFF}, {1, 0xFF}, {3, 0xF0}});
  // 16 GPUs = exactly two whole nodes, the lowest-index ones.
  CHECK(place(cluster, 16) == Placement{{0, 0xFF}, {1, 0xFF}});
  // 28 GPUs: 3 whole free nodes remain (0,1,2) = 24, remainder 4 on node 3.
  CHECK(place(cluster, 28) == Placement{{0, 0xFF}, {1, 0xFF}, {2, 0xFF}, {3, 0xF0}});
  // 29 GPUs would need a 5-GPU remainder: no node has it.
  CHECK(place(cluster, 29).empty());
}

TEST_CASE("pack: mixed node sizes take the largest whole nodes first", "[placement][pack]") {
  Cluster cluster(parse_cluster_spec("2x4,1x8"));  // nodes 0,1: 4 GPUs; node 2: 8 GPUs
  CHECK(place(cluster, 12) == Placement{{0, 0x0F}, {2, 0xFF}});
  CHECK(place(cluster, 10) == Placement{{0, 0x03}, {2, 0xFF}});
  CHECK(place(cluster, 16) == Placement{{0, 0x0F}, {1, 0x0F}, {2, 0xFF}});
  CHECK(place(cluster, 6) == Placement{{2, 0x3F}});  // fits one node: single node only
}

TEST_CASE("pack: a gpu_type constraint limits the candidate nodes", "[placement][pack]") {
  Cluster cluster(parse_cluster_spec("2x8:A100,2x8:H100"));
  const auto h100 = *cluster.find_gpu_type("H100");
  const auto a100 = *cluster.find_gpu_type("A100");
  CHECK(place(cluster, 4, h100) == Placement{{2, 0x0F}});
  CHECK(place(cluster, 4, a100) == Placement{{0, 0x0F}});
  CHECK(place(cluster, 16, h100) == Placement{{2, 0xFF}, {3, 0xFF}});
  CHECK(place(cluster, 17, h100).empty());
  // Unconstrained: best fit over every type.
  cluster.allocate({{3, 0x7F}});
  CHECK(place(cluster, 1) == Placement{{3, 0x80}});
}

TEST_CASE("pack always places a feasible job on an empty cluster", "[placement][pack]") {
  for (const char* spec : {"3x8", "2x4,1x8", "1x3,2x5,1x64", "7x1"}) {
    const Cluster cluster(parse_cluster_spec(spec));
    for (int gpus = 1; gpus <= cluster.total_gpus(); ++gpus) {
      const Placement p = place(cluster, gpus);
      INFO(spec << " gpus=" << gpus);
      REQUIRE(placement_gpu_count(p) == gpus);
      REQUIRE(cluster.can_allocate(p));
    }
  }
}

TEST_CASE("unknown placement names are input errors", "[placement]") {
  CHECK_THROWS_WITH(make_placement("tetris"),
                    Catch::StartsWith("--placement: unknown strategy 'tetris' (known: "));
}
