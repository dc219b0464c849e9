// The fragmentation measure computed by hand, and the worked example of each shared placement
// that docs/gpu-sharing.md gives (the same cluster and task, the same scores).
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/gpu_fragmentation.hpp"
#include "schedlab/random.hpp"
#include "schedlab/shared_placement.hpp"

using namespace schedlab;

namespace {

SharedNode node(const std::string& name, std::vector<int> gpu_milli_free, std::int64_t cpu_milli,
                std::int64_t cpu_milli_free) {
  SharedNode n;
  n.name = name;
  n.gpu_type = 0;
  n.cpu_milli = cpu_milli;
  n.cpu_milli_free = cpu_milli_free;
  n.memory_mib = n.memory_mib_free = 65536;
  n.gpu_milli_free = std::move(gpu_milli_free);
  return n;
}

SharedTask task(int gpus, int gpu_milli, std::int64_t cpu_milli = 0) {
  SharedTask t;
  t.gpus = gpus;
  t.gpu_milli = gpu_milli;
  t.cpu_milli = cpu_milli;
  return t;
}

// The docs' example: A has 2 GPUs (500 and 1000 milli left) and 12 of 16 CPUs left; B 4 idle
// GPUs and 32 CPUs; C 1 idle GPU and 8 CPUs. The task asks for 500 milli of one GPU and 2 CPUs.
std::vector<SharedNode> example_cluster() {
  return {node("A", {500, 1000}, 16000, 12000), node("B", {1000, 1000, 1000, 1000}, 32000, 32000),
          node("C", {1000}, 8000, 8000)};
}
const SharedTask kExampleTask = task(1, 500, 2000);

// The docs' task mix: half 500-milli sharing tasks, half one whole GPU.
TaskMix example_mix() {
  return task_mix({task(1, 500), task(1, 1000)}, 1.0);
}

SharedAllocation place_one(SharedPlacementKind kind, std::vector<SharedNode>& nodes,
                           const SharedTask& t, std::uint64_t seed = 1) {
  FragmentationMeter meter(example_mix());
  Rng rng(seed);
  SharedPlacer placer(kind, nodes, &meter, rng);
  const auto a = placer.place(t);
  REQUIRE(a.has_value());
  return *a;
}

}  // namespace

TEST_CASE("fragmentation: F_n(m) by hand", "[sharing]") {
  const SharedNode n = node("n", {1000, 500, 300, 0}, 8000, 4000);  // 1800 milli free
  CHECK(fragmentation_milli(n, task(1, 600, 1000)) == 800);         // only GPU 0 holds 600
  CHECK(fragmentation_milli(n, task(1, 300, 1000)) == 0);           // GPU 3 has nothing left
  CHECK(fragmentation_milli(n, task(2, 1000)) == 1800);             // one idle GPU: cannot run
  CHECK(fragmentation_milli(n, task(0, 0, 1000)) == 1800);          // uses no GPU
  CHECK(fragmentation_milli(n, task(1, 100, 5000)) == 1800);        // too little CPU left
  SharedTask typed = task(1, 100);
  typed.gpu_type_mask = 0b10;  // type 1 only; the node is type 0
  CHECK(fragmentation_milli(n, typed) == 1800);
  TaskMix mix = task_mix({task(1, 600, 1000), task(1, 600, 1000), task(2, 1000), task(0, 0)}, 1.0);
  REQUIRE(mix.classes.size() == 3);
  CHECK(mix.classes[0].count == 2);
  CHECK(mix.classes[0].popularity == Approx(0.5));
  // 0.5 x 800 + 0.25 x 1800 + 0.25 x 1800
  CHECK(expected_fragmentation_milli(n, mix) == Approx(1300.0));
  FragmentationMeter meter(mix);
  CHECK(meter.node_milli(n) == Approx(1300.0));
  CHECK(meter.node_milli(n) == Approx(1300.0));  // cached
  CHECK(expected_fragmentation_milli(node("cpu", {}, 8000, 8000), mix) == 0.0);
}

TEST_CASE("fragmentation: the task mix keeps the most frequent classes up to the coverage",
          "[sharing]") {
  std::vector<SharedTask> tasks;
  for (int i = 0; i < 6; ++i) tasks.push_back(task(1, 1000));
  for (int i = 0; i < 3; ++i) tasks.push_back(task(1, 500));
  tasks.push_back(task(2, 1000));
  const TaskMix mix = task_mix(tasks, 0.9);  // 6 + 3 = 9 of 10 tasks cover 90%
  REQUIRE(mix.classes.size() == 2);
  CHECK(mix.classes[0].task.gpu_milli == 1000);
  CHECK(mix.classes[1].task.gpu_milli == 500);
  CHECK(mix.classes[0].popularity == Approx(6.0 / 9.0));
  CHECK(task_mix(tasks, 0.95).classes.size() == 3);
  CHECK_THROWS_AS(task_mix({}, 0.9), InputError);
  CHECK_THROWS_AS(task_mix(tasks, 0.0), InputError);
}

TEST_CASE("shared placement: the worked examples of docs/gpu-sharing.md", "[sharing]") {
  SECTION("best-fit takes C: -(0.5 x 6000/32000 + 0.5 x 500/4000) = -0.15625 is the highest") {
    auto nodes = example_cluster();
    const auto a = place_one(SharedPlacementKind::kBestFit, nodes, kExampleTask);
    CHECK(a.node == 2);
    CHECK(a.gpus == std::vector<int>{0});
  }
  SECTION("dot-product takes C: 8000 x 2000/32000^2 + 1000 x 500/4000^2 = 0.046875 is smallest") {
    auto nodes = example_cluster();
    CHECK(place_one(SharedPlacementKind::kDotProduct, nodes, kExampleTask).node == 2);
  }
  SECTION("gpu-packing takes A's partly used GPU 0 (score 95; idle B 29, idle C 32)") {
    auto nodes = example_cluster();
    const auto a = place_one(SharedPlacementKind::kGpuPacking, nodes, kExampleTask);
    CHECK(a.node == 0);
    CHECK(a.gpus == std::vector<int>{0});
    CHECK(nodes[0].gpu_milli_free == std::vector<int>{0, 1000});
  }
  SECTION("fgd takes A's GPU 0: delta +250 (score 56) against -250 (43) elsewhere") {
    auto nodes = example_cluster();
    FragmentationMeter meter(example_mix());
    CHECK(meter.node_milli(nodes[0]) == Approx(250.0));
    CHECK(meter.node_milli(nodes[1]) == Approx(0.0));
    const auto a = place_one(SharedPlacementKind::kFgd, nodes, kExampleTask);
    CHECK(a.node == 0);
    CHECK(a.gpus == std::vector<int>{0});
    CHECK(meter.node_milli(nodes[0]) == Approx(0.0));
    CHECK(std::floor(100.0 / (1.0 + std::exp(-0.25))) == 56.0);
    CHECK(std::floor(100.0 / (1.0 + std::exp(0.25))) == 43.0);
  }
  SECTION("gpu-clustering groups tasks of the same GPU demand") {
    std::vector<SharedNode> nodes{node("A", {1000, 1000}, 16000, 16000),
                                  node("B", {1000, 1000, 1000, 1000}, 32000, 32000)};
    FragmentationMeter meter(example_mix());
    Rng rng(1);
    SharedPlacer placer(SharedPlacementKind::kGpuClustering, nodes, &meter, rng);
    CHECK(placer.place(task(1, 1000))->node == 0);  // A 25 + 12 (fuller), B 25 + 0
    CHECK(placer.place(task(1, 500))->node == 1);   // A holds another demand: 0 + 18; B 25 + 0
    CHECK(placer.place(task(1, 500))->node == 1);   // B holds only sharing tasks: 75 + 3
    CHECK(placer.place(task(1, 1000))->node == 0);  // A 75 + 18; B 0 + 6
  }
  SECTION("random-fit draws a feasible node from the seed, the same each time") {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      auto first = example_cluster();
      auto second = example_cluster();
      const auto a = place_one(SharedPlacementKind::kRandomFit, first, kExampleTask, seed);
      const auto b = place_one(SharedPlacementKind::kRandomFit, second, kExampleTask, seed);
      CHECK(a.node == b.node);
      CHECK(a.gpus == b.gpus);
    }
  }
  SECTION("a task that fits nowhere is not placed and changes nothing") {
    auto nodes = example_cluster();
    FragmentationMeter meter(example_mix());
    Rng rng(1);
    for (const auto kind : kAllSharedPlacements) {
      SharedPlacer placer(kind, nodes, &meter, rng);
      CHECK_FALSE(placer.place(task(8, 1000)).has_value());
    }
    CHECK(nodes[1].gpu_milli_free == std::vector<int>{1000, 1000, 1000, 1000});
  }
  CHECK_THROWS_WITH(parse_shared_placement("tetris"),
                    "unknown placement 'tetris' (known: random-fit, best-fit, dot-product, "
                    "gpu-packing, gpu-clustering, fgd)");
}
