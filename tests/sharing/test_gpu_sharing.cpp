// The GPU-sharing model's contract (include/schedlab/gpu_sharing.hpp) and, for every shared
// placement, the invariants over long random placement sequences: no GPU's fractions above
// 1000, no node's CPU or memory over capacity, per-GPU bookkeeping equal to the tasks placed.
#include <map>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/gpu_sharing.hpp"
#include "schedlab/random.hpp"
#include "schedlab/shared_placement.hpp"

using namespace schedlab;

namespace {

SharedNode node(const std::string& name, int gpus, std::int64_t cpu_milli, std::int64_t memory_mib,
                int type = 0) {
  SharedNode n;
  n.name = name;
  n.gpu_type = gpus > 0 ? type : kNoGpuType;
  n.cpu_milli = n.cpu_milli_free = cpu_milli;
  n.memory_mib = n.memory_mib_free = memory_mib;
  n.gpu_milli_free.assign(static_cast<std::size_t>(gpus), kMilliPerGpu);
  return n;
}

SharedTask task(int gpus, int gpu_milli, std::int64_t cpu_milli = 0, std::int64_t memory_mib = 0) {
  SharedTask t;
  t.gpus = gpus;
  t.gpu_milli = gpu_milli;
  t.cpu_milli = cpu_milli;
  t.memory_mib = memory_mib;
  return t;
}

}  // namespace

TEST_CASE("sharing: fractional tasks share a GPU up to 1000 milli", "[sharing]") {
  SharedNode n = node("n", 2, 8000, 1024);
  const SharedTask share = task(1, 600, 1000, 100);
  REQUIRE(fits(n, share));
  allocate(n, share, tightest_gpus(n, share));
  CHECK(n.gpu_milli_free == std::vector<int>{400, 1000});
  // 600 no longer fits GPU 0 (400 left): the tightest GPU it fits is GPU 1.
  CHECK(tightest_gpus(n, share) == std::vector<int>{1});
  allocate(n, share, {1});
  CHECK(n.gpu_milli_free == std::vector<int>{400, 400});
  CHECK_FALSE(fits(n, share));
  const SharedTask small = task(1, 400);
  CHECK(tightest_gpus(n, small) == std::vector<int>{0});
  CHECK_FALSE(fits(n, task(1, 1000)));
  CHECK(n.cpu_milli_free == 6000);
  CHECK(n.memory_mib_free == 824);
  CHECK_THROWS_AS(allocate(n, share, {0}), InvariantError);
  release(n, share, {1});
  CHECK(n.gpu_milli_free == std::vector<int>{400, 1000});
  CHECK(n.cpu_milli_free == 7000);
  CHECK_THROWS_AS(release(n, share, {1}), InvariantError);  // above capacity
}

TEST_CASE("sharing: CPU, memory and GPU type must all fit", "[sharing]") {
  const SharedNode n = node("n", 4, 4000, 2048, /*type=*/2);
  CHECK(fits(n, task(4, 1000, 4000, 2048)));
  CHECK_FALSE(fits(n, task(4, 1000, 4001, 0)));
  CHECK_FALSE(fits(n, task(1, 100, 0, 2049)));
  CHECK_FALSE(fits(n, task(5, 1000)));
  SharedTask typed = task(1, 500);
  typed.gpu_type_mask = 0b001;  // type 0 only
  CHECK_FALSE(fits(n, typed));
  typed.gpu_type_mask = 0b101;  // type 0 or 2
  CHECK(fits(n, typed));
  // A node without GPUs takes CPU-only tasks, never GPU tasks.
  const SharedNode cpu_node = node("c", 0, 8000, 1024);
  CHECK(fits(cpu_node, task(0, 0, 8000, 1024)));
  CHECK_FALSE(fits(cpu_node, task(1, 1)));
  // Whole-GPU tasks take idle GPUs in index order.
  SharedNode m = node("m", 4, 8000, 1024);
  allocate(m, task(1, 300), {1});
  CHECK(tightest_gpus(m, task(2, 1000)) == std::vector<int>{0, 2});
  CHECK(tightest_gpus(m, task(1, 700)) == std::vector<int>{1});
}

TEST_CASE("sharing: every placement keeps the invariants over random workloads", "[sharing]") {
  for (const auto kind : kAllSharedPlacements) {
    DYNAMIC_SECTION(shared_placement_name(kind)) {
      Rng workload(7);
      std::vector<SharedNode> nodes;
      for (int i = 0; i < 12; ++i)
        nodes.push_back(node(fmt::format("n{}", i), i % 4 == 3 ? 0 : 1 << (i % 4),
                             16000 + 4000 * (i % 3), 65536, i % 2));
      std::vector<SharedTask> tasks;
      for (int i = 0; i < 400; ++i) {
        const auto draw = workload.uniform_int(0, 9);
        SharedTask t = draw < 5   ? task(1, static_cast<int>(workload.uniform_int(1, 999)))
                       : draw < 8 ? task(static_cast<int>(workload.uniform_int(1, 4)), 1000)
                                  : task(0, 0);
        t.cpu_milli = workload.uniform_int(0, 6000);
        t.memory_mib = workload.uniform_int(0, 9000);
        if (draw == 4) t.gpu_type_mask = 0b10;
        tasks.push_back(t);
      }
      FragmentationMeter meter(task_mix(tasks));
      Rng rng(3);
      SharedPlacer placer(kind, nodes, &meter, rng);
      // Independent bookkeeping: milli taken per (node, GPU), CPU and memory per node.
      std::map<std::pair<std::size_t, int>, int> taken;
      std::vector<std::int64_t> cpu(nodes.size(), 0);
      std::vector<std::int64_t> memory(nodes.size(), 0);
      std::size_t placed = 0;
      for (const auto& t : tasks) {
        const bool fits_somewhere = std::any_of(nodes.begin(), nodes.end(),
                                                [&](const SharedNode& n) { return fits(n, t); });
        const auto a = placer.place(t);
        REQUIRE(a.has_value() == fits_somewhere);  // a task is dropped only when nothing fits
        if (!a) continue;
        ++placed;
        REQUIRE(static_cast<int>(a->gpus.size()) == t.gpus);
        if (t.gpus > 0 && t.gpu_type_mask != 0)
          REQUIRE((t.gpu_type_mask >> nodes[a->node].gpu_type & 1U) == 1U);
        for (const int g : a->gpus) taken[{a->node, g}] += t.gpu_milli;
        cpu[a->node] += t.cpu_milli;
        memory[a->node] += t.memory_mib;
        for (std::size_t n = 0; n < nodes.size(); ++n) {
          REQUIRE_NOTHROW(check_node_invariants(nodes[n]));
          REQUIRE(nodes[n].cpu_milli_free == nodes[n].cpu_milli - cpu[n]);
          REQUIRE(nodes[n].memory_mib_free == nodes[n].memory_mib - memory[n]);
          for (int g = 0; g < nodes[n].gpu_count(); ++g) {
            const int used = taken.count({n, g}) > 0 ? taken.at({n, g}) : 0;
            REQUIRE(used <= kMilliPerGpu);
            REQUIRE(nodes[n].gpu_milli_free[static_cast<std::size_t>(g)] == kMilliPerGpu - used);
          }
        }
      }
      CHECK(placed > 50);
      CHECK(placed < tasks.size());  // the cluster fills up
    }
  }
}
