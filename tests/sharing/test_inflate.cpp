// The workload-inflation experiment on the bundled openb node and pod lists: FGD ranks first as
// in the paper, on the GPU nodes every placement ranks as in the paper's artifact, the arrivals
// follow their contract, outputs are reproducible byte for byte, and bad input is one line naming
// file, line, column and value, exit 2, nothing written.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/inflate.hpp"
#include "schedlab/inflate_report.hpp"
#include "schedlab/sharing_inputs.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

const std::string kNodes = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/alibaba-openb-nodes.csv";
const std::string kPods = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/alibaba-openb-pods.csv.gz";

std::string write_temp(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return path;
}

}  // namespace

TEST_CASE("inflate: the bundled openb lists read with their real requests", "[sharing]") {
  const SharedCluster cluster = read_shared_nodes(kNodes);
  CHECK(cluster.nodes.size() == 1523);
  CHECK(cluster.gpu_count() == 6212);
  CHECK(cluster.gpu_types.size() == 7);
  const auto tasks = read_shared_tasks(kPods, cluster);
  REQUIRE(tasks.size() == 8152);
  std::size_t sharing = 0, cpu_only = 0, multi = 0;
  for (const auto& t : tasks) {
    sharing += t.sharing() ? 1 : 0;
    cpu_only += t.gpus == 0 ? 1 : 0;
    multi += t.gpus > 1 ? 1 : 0;
  }
  CHECK(sharing == 3078);
  CHECK(cpu_only == 1088);
  CHECK(multi == 75);
  CHECK(tasks[1].gpu_milli == 460);
  CHECK(tasks[1].cpu_milli == 6000);
  CHECK(tasks[1].memory_mib == 12288);
}

TEST_CASE("inflate: FGD leaves the fewest GPUs unallocated on openb over 5 seeds", "[sharing]") {
  const SharedCluster cluster = read_shared_nodes(kNodes);
  const auto tasks = read_shared_tasks(kPods, cluster);
  InflateOptions options;
  options.seeds = {42, 43, 44, 45, 46};
  options.inflation = 1.0;
  const InflateResult result = run_inflate(cluster, tasks, options);
  REQUIRE(result.replicates.size() == 30);
  const auto standings = inflate_standings(result);
  const auto mean = [](const InflateStanding& s) { return s.unallocated_gpus.mean; };
  CHECK(shared_placement_name(standings.front().placement) == std::string("fgd"));
  CHECK(shared_placement_name(standings.back().placement) == std::string("random-fit"));
  // FGD first on every seed, not only on average; its figure near the paper's 296 of 6,212.
  for (const auto& s : standings)
    if (s.placement != SharedPlacementKind::kFgd)
      for (std::size_t i = 0; i < 5; ++i)
        CHECK(standings.front().unallocated_gpus_at_100[i] < s.unallocated_gpus_at_100[i]);
  CHECK(mean(standings.front()) > 250.0);
  CHECK(mean(standings.front()) < 350.0);
  for (const auto& r : result.replicates) {
    REQUIRE(r.points.size() == 101);
    const InflatePoint& p = point_at(r, 100);
    // Arrivals stop before the task that would pass 100%: within one task (8 GPUs) of it.
    CHECK(p.arrived_milli <= 6212 * 1000);
    CHECK(p.arrived_milli > 6204 * 1000);
    CHECK(p.allocated_milli <= p.arrived_milli);
    CHECK(p.gpus_idle + p.gpus_partly_used <= 6212);
    // Arrivals are the same for every placement of a seed.
    CHECK(p.tasks_arrived == point_at(result.replicates[r.seed - 42], 100).tasks_arrived);
  }
}

TEST_CASE("inflate: on openb's GPU nodes the placements rank as in the paper's artifact",
          "[sharing]") {
  // The artifact's expected unallocated GPUs at 100% (seeds 42-51): fgd 296.5, best-fit 443.4,
  // gpu-packing 510.7, gpu-clustering 518.7, dot-product 582.6, random-fit 850.9. Two seeds
  // here; gpu-packing and gpu-clustering are within 1% of each other, so only their pair is
  // placed, not their order (docs/gpu-sharing.md has all ten seeds).
  const SharedCluster cluster =
      read_shared_nodes(std::string(SCHEDLAB_SOURCE_DIR) + "/traces/alibaba-openb-gpu-nodes.csv");
  REQUIRE(cluster.nodes.size() == 1213);
  REQUIRE(cluster.gpu_count() == 6212);
  InflateOptions options;
  options.seeds = {42, 43};
  options.inflation = 1.0;
  const auto standings =
      inflate_standings(run_inflate(cluster, read_shared_tasks(kPods, cluster), options));
  std::vector<std::string> order;
  for (const auto& s : standings) order.emplace_back(shared_placement_name(s.placement));
  REQUIRE(order.size() == 6);
  CHECK(order[0] == "fgd");
  CHECK(order[1] == "best-fit");
  CHECK(std::set<std::string>{order[2], order[3]} ==
        std::set<std::string>{"gpu-packing", "gpu-clustering"});
  CHECK(order[4] == "dot-product");
  CHECK(order[5] == "random-fit");
  // FGD about 29% below best-fit (the artifact: 33%).
  const double ratio = standings[0].unallocated_gpus.mean / standings[1].unallocated_gpus.mean;
  CHECK(ratio > 0.6);
  CHECK(ratio < 0.8);
}

TEST_CASE("inflate: the command's outputs are reproducible and its input errors exact",
          "[sharing]") {
  const std::string dir = fresh_temp_dir("inflate");
  const std::string command = fmt::format(
      "{} inflate --nodes {} --pods {} --placements best-fit,fgd --seeds 1 "
      "--inflation 1 -q -o ",
      shell_quote(schedlab_binary()), shell_quote(kNodes), shell_quote(kPods));
  const CommandResult first = run_command(command + dir + "/a");
  REQUIRE(first.exit_code == 0);
  const CommandResult again = run_command(command + dir + "/b");
  REQUIRE(again.exit_code == 0);
  for (const char* name : {"inflate.csv", "inflate.md", "inflate.html"})
    CHECK(read_text(dir + "/a/" + name) == read_text(dir + "/b/" + name));
  const std::string csv = read_text(dir + "/a/inflate.csv");
  CHECK(csv.find("fgd,1,100,") != std::string::npos);
  CHECK(csv.find("best-fit,1,0,0.000,0.000,6212.000,0.000000,") != std::string::npos);
  CHECK(read_text(dir + "/a/inflate.html").find("<svg") != std::string::npos);

  const std::string nodes = write_temp(dir, "nodes.csv",
                                       "sn,cpu_milli,memory_mib,gpu,model\n"
                                       "n0,32000,262144,2,T4\n");
  const auto run = [&](const std::string& pods_text, const std::string& extra = "") {
    const std::string pods = write_temp(dir, "pods.csv", pods_text);
    return run_command(fmt::format("{} inflate --nodes {} --pods {} -o {}/bad {}",
                                   shell_quote(schedlab_binary()), shell_quote(nodes),
                                   shell_quote(pods), dir, extra));
  };
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n";
  CommandResult r = run(header + "p0,1000,1024,1,1500,\n");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        dir + "/pods.csv:2: column 'gpu_milli': expected an integer in 1..1000, got '1500'\n");
  r = run(header + "p0,1000,1024,2,500,\n");
  CHECK(r.exit_code == 2);
  CHECK(
      r.err ==
      dir +
          "/pods.csv:2: column 'gpu_milli': expected 1000 for a pod of several GPUs, got '500'\n");
  r = run(header + "p0,1000,1024,1,500,A100|H100\n");
  CHECK(r.exit_code == 2);
  CHECK(r.err == dir +
                     "/pods.csv:2: column 'gpu_spec': expected a GPU model of the nodes (T4), got "
                     "'A100|H100'\n");
  r = run(header + "p0,1000,1024,1,500,T4\n", "--placements fgd,tetris");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown placement 'tetris'") != std::string::npos);
  r = run(header + "p0,1000,1024,1,500,T4\n", "--inflation 0");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "inflate: inflation 0 is outside [1, 10] (results are read at 100%)\n");
  r = run(header + "p0,1000,1024,0,0,\n");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "inflate: no pod asks for a GPU\n");
  CHECK_FALSE(fs::exists(dir + "/bad"));
  r = run(header + "p0,1000,1024,1,500,T4|A100\n", "--seeds 1 --inflation 2");
  CHECK(r.exit_code == 0);
}
