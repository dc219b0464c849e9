// Placement strategies pack, spread and first-fit on one hand-checked sequence, and directly
// on cluster states.
#include <catch2/catch.hpp>

#include "policies/policy_support.hpp"
#include "schedlab/placement_strategy.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Four 4-GPU nodes (GPU ids 0-3, 4-7, 8-11, 12-15); nothing ends before d starts.
const char* kTrace =
    "id,submit_time,gpus,duration\n"
    "a,0,2,1000\n"
    "b,1,3,1000\n"
    "c,2,1,1000\n"
    "d,3,6,1000\n";

std::map<std::string, std::string> gpus_with(const std::string& placement) {
  RunOptions options;
  options.placement = placement;
  const Trace t = trace_from_csv(kTrace);
  return column_by_id(run_checked(t, "4x4", "fifo", {}, options), "allocated_resources");
}

}  // namespace

TEST_CASE("pack: fewest free GPUs that fit, whole nodes plus one best fit", "[placement]") {
  // a -> node 0 (all equal, lowest); b -> node 1 (node 0 has only 2); c -> node 1 (1 free,
  // the fewest); d (6) -> whole node 2, remainder 2 on node 0 (2 free, the best fit).
  const auto g = gpus_with("pack");
  CHECK(g.at("a") == "0-1");
  CHECK(g.at("b") == "4-6");
  CHECK(g.at("c") == "7");
  CHECK(g.at("d") == "2-3 8-11");
}

TEST_CASE("spread: the node with the most free GPUs", "[placement]") {
  // a -> node 0; b -> node 1 (4 free, lowest among nodes 1-3); c -> node 2 (4 free);
  // d (6) -> most free first: node 3 (4), then node 2 (3 free: 9-11) for the last 2 -> 9-10.
  const auto g = gpus_with("spread");
  CHECK(g.at("a") == "0-1");
  CHECK(g.at("b") == "4-6");
  CHECK(g.at("c") == "8");
  CHECK(g.at("d") == "9-10 12-15");
}

TEST_CASE("first-fit: the lowest node index that fits", "[placement]") {
  // a -> node 0; b -> node 1 (node 0 has 2 free); c -> node 0 (GPU 2); d (6) -> whole free
  // nodes in index order: node 2, then the remainder 2 on the lowest node with 2 free that is
  // not taken: node 3 (nodes 0 and 1 have 1 free each).
  const auto g = gpus_with("first-fit");
  CHECK(g.at("a") == "0-1");
  CHECK(g.at("b") == "4-6");
  CHECK(g.at("c") == "2");
  CHECK(g.at("d") == "8-13");
}

TEST_CASE("placements refuse what does not fit and respect GPU types", "[placement]") {
  Cluster cluster(parse_cluster_spec("2x4:V100,1x8:A100"));
  const auto v100 = *cluster.find_gpu_type("V100");
  const auto a100 = *cluster.find_gpu_type("A100");
  for (const char* name : {"pack", "spread", "first-fit"}) {
    INFO(name);
    const auto strategy = make_placement(name);
    CHECK_FALSE(strategy->place(cluster, v100, 9));
    CHECK_FALSE(strategy->place(cluster, a100, 9));
    const auto on_a100 = strategy->place(cluster, a100, 8);
    REQUIRE(on_a100);
    CHECK(*on_a100 == Placement{{2, 0xFF}});
    const auto on_v100 = strategy->place(cluster, v100, 8);
    REQUIRE(on_v100);
    CHECK(*on_v100 == Placement{{0, 0xF}, {1, 0xF}});
    // Fragment both V100 nodes: one GPU taken on each; 4 V100 GPUs fit no single node.
    Cluster fragmented = cluster;
    fragmented.allocate({{0, 0x1}, {1, 0x1}});
    CHECK_FALSE(strategy->place(fragmented, v100, 4));
    const auto three = strategy->place(fragmented, v100, 3);
    REQUIRE(three);
    CHECK(placement_gpu_count(*three) == 3);
  }
}
