// The readers on the real public traces in ../shared/traces: job counts, skip counts and
// GPU-hours equal the figures in each folder's SOURCE.txt / README.md. Also the slices
// bundled in traces/.
#include <catch2/catch.hpp>

#include "schedlab/cluster.hpp"
#include "schedlab/trace.hpp"
#include "schedlab/trace_inventory.hpp"
#include "schedlab/trace_stats.hpp"
#include "traces/trace_test_util.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

std::int64_t total_gpus(const ClusterSpec& spec) {
  std::int64_t gpus = 0;
  for (const auto& g : spec.groups) gpus += static_cast<std::int64_t>(g.count) * g.gpus_per_node;
  return gpus;
}
std::int64_t total_nodes(const ClusterSpec& spec) {
  std::int64_t nodes = 0;
  for (const auto& g : spec.groups) nodes += g.count;
  return nodes;
}

#define REQUIRE_SHARED()                                                \
  do {                                                                  \
    if (!have_shared_traces()) {                                        \
      WARN("no " << shared_trace("") << ": real-trace checks not run"); \
      return;                                                           \
    }                                                                   \
  } while (false)

}  // namespace

TEST_CASE("ITP 2021: 10 clusters, 69,351 jobs, 1,632,719.7 GPU-hours", "[traces]") {
  REQUIRE_SHARED();
  const Trace trace = read_trace(shared_trace("microsoft-itp-2021"));
  CHECK(trace.format == "itp");
  CHECK(trace.jobs.size() == 69351);
  CHECK(trace.skipped.empty());
  // Integer seconds throughout, so the sum is exact: 5,877,791,065 GPU-s.
  CHECK(gpu_hours(trace) == Approx(5877791065.0 / 3600.0).epsilon(1e-12));
  CHECK(std::round(gpu_hours(trace) * 10) / 10 == 1632719.7);
  const TraceStats stats = compute_trace_stats(trace);
  CHECK(stats.tenants == 10);  // one tenant per cluster file
  // First row of cluster01.csv.
  CHECK(trace.jobs.front().id == "965d744f-0445-c1a8-12af-97e4c536c66e");
  CHECK(trace.jobs.front().submit_ms == 1'932'025'000);
  CHECK(trace.jobs.front().duration_ms == 2'429'000);
  CHECK(trace.jobs.front().gpus == 64);
  CHECK(trace.strings.str(trace.jobs.front().tenant) == "cluster01");
}

TEST_CASE("Philly philly.csv: 82,247 jobs, local times rebased to the earliest", "[traces]") {
  REQUIRE_SHARED();
  const Trace trace = read_trace(shared_trace("philly-2017/philly.csv"));
  CHECK(trace.format == "philly-csv");
  CHECK(trace.jobs.size() == 82247);
  CHECK(trace.skipped.empty());
  CHECK(gpu_hours(trace) == Approx(978078.4727777778).epsilon(1e-12));
  // Row 1: 2017-10-09 07:01:55; the earliest row is 2017-09-04 10:30:41.
  CHECK(trace.jobs[0].id == "1");
  CHECK(trace.jobs[0].submit_ms == 3'011'474'000);
  CHECK(trace.jobs[0].duration_ms == 66'000);
  CHECK(trace.strings.str(trace.jobs[0].tenant) == "11cb48");
  const TraceStats stats = compute_trace_stats(trace);
  CHECK(stats.first_submit_ms == 0);
  CHECK(stats.tenants == 15);
}

TEST_CASE("Philly per-VC directory: 109,532 jobs in 12 files, ids prefixed", "[traces]") {
  REQUIRE_SHARED();
  const Trace trace = read_trace(shared_trace("philly-2017/per-vc"));
  CHECK(trace.format == "philly-vc");
  CHECK(trace.jobs.size() == 109532);
  // app_id restarts at 0 in every file, so ids carry the file name.
  CHECK(trace.jobs.front().id == "trace_0e4a51/0");
  CHECK(trace.strings.str(trace.jobs.front().tenant) == "0e4a51");
  // Durations are service / GPUs rounded to the ms; the service column sums to
  // 2,001,631.036 GPU-hours.
  CHECK(gpu_hours(trace) == Approx(2001631.036).margin(0.01));
  const Trace one = read_trace(shared_trace("philly-2017/per-vc/trace_6214e9.csv"));
  CHECK(one.jobs.size() == 51258);
  CHECK(one.jobs[1].id == "1");
  CHECK(one.jobs[1].submit_ms == 266'564'000);
  CHECK(one.jobs[1].duration_ms == 3'879'832'000);  // 3879831.9999999995 s of service on 1 GPU
}

TEST_CASE("Alibaba openb: 8,152 pods = 6,203 GPU jobs + 1,088 CPU-only + 861 Pending", "[traces]") {
  REQUIRE_SHARED();
  const Trace trace = read_trace(shared_trace("alibaba-gpu-2023/openb_pod_list_default.csv"));
  CHECK(trace.format == "alibaba-openb");
  CHECK(trace.jobs.size() == 6203);
  CHECK(skipped_count(trace, "CPU-only (num_gpu 0)") == 1088);
  CHECK(skipped_count(trace, "never scheduled (no scheduled_time)") == 861);
  CHECK(trace.jobs.size() + 1088 + 861 == 8152);
  CHECK(gpu_hours(trace) == Approx(59612.21055555555).epsilon(1e-12));
  const TraceStats stats = compute_trace_stats(trace);
  REQUIRE(stats.statuses.size() == 3);
  CHECK(stats.statuses[0] == std::pair<std::string, std::uint64_t>{"Running", 4149});
  CHECK(stats.statuses[1] == std::pair<std::string, std::uint64_t>{"Succeeded", 185});
  CHECK(stats.statuses[2] == std::pair<std::string, std::uint64_t>{"Failed", 1869});
  // openb-pod-0000: creation 0, scheduled 0, deletion 12537496, LS.
  CHECK(trace.jobs[0].id == "openb-pod-0000");
  CHECK(trace.jobs[0].duration_ms == 12'537'496'000);
  CHECK(trace.jobs[0].priority == 2);
  CHECK(trace.strings.str(trace.jobs[0].tenant) == "LS");
}

TEST_CASE("Alibaba openb node lists: 1,523 nodes, 6,212 GPUs", "[traces]") {
  REQUIRE_SHARED();
  const ClusterSpec all = parse_cluster_spec(
      "alibaba-openb:" + shared_trace("alibaba-gpu-2023/openb_node_list_all_node.csv"));
  CHECK(total_nodes(all) == 1523 - 310);  // 310 nodes have no GPU
  CHECK(total_gpus(all) == 6212);
  const ClusterSpec gpu = parse_cluster_spec(
      "alibaba-openb:" + shared_trace("alibaba-gpu-2023/openb_node_list_gpu_node.csv"));
  CHECK(total_nodes(gpu) == 1213);
  CHECK(total_gpus(gpu) == 6212);
  REQUIRE(gpu.groups.size() >= 1);
  CHECK(gpu.groups[0].gpu_type == "P100");
  CHECK(gpu.groups[0].gpus_per_node == 2);
  const Cluster cluster(gpu);
  CHECK(cluster.total_gpus() == 6212);
  CHECK(cluster.total_gpus_of(*cluster.find_gpu_type("G2")) == 549 * 8);
}

TEST_CASE("Alibaba PAI machine spec: 1,814 GPU machines, 6,742 GPUs", "[traces]") {
  REQUIRE_SHARED();
  const ClusterSpec spec =
      parse_cluster_spec("alibaba-pai:" + shared_trace("schemas/pai_machine_spec.csv"));
  CHECK(total_nodes(spec) == 1814);  // 83 CPU machines left out of 1,897
  CHECK(total_gpus(spec) == 6742);
  const Cluster cluster(spec);
  CHECK(cluster.total_gpus_of(*cluster.find_gpu_type("T4")) == 497 * 2);
  CHECK(cluster.total_gpus_of(*cluster.find_gpu_type("MISC")) == 280 * 8);
}

TEST_CASE("Philly philly_vc.csv: 11 VCs, 352 nodes of 8 GPUs", "[traces]") {
  REQUIRE_SHARED();
  const ClusterSpec all =
      parse_cluster_spec("philly-vc:" + shared_trace("philly-2017/philly_vc.csv"));
  CHECK(all.groups.size() == 11);
  CHECK(total_nodes(all) == 352);
  CHECK(total_gpus(all) == 352 * 8);
  const ClusterSpec one =
      parse_cluster_spec("philly-vc:" + shared_trace("philly-2017/philly_vc.csv") + "@6214e9");
  CHECK(total_nodes(one) == 64);
  CHECK_THROWS_WITH(
      parse_cluster_spec("philly-vc:" + shared_trace("philly-2017/philly_vc.csv") + "@nope"),
      Catch::Contains("no virtual cluster 'nope' with nodes (known: 6214e9, 7f04ca"));
}

TEST_CASE("SWF NASA iPSC 1993 (gzip): 18,239 records = 18,066 jobs + 173 of run time 0",
          "[traces]") {
  REQUIRE_SHARED();
  const Trace trace = read_trace(shared_trace("swf-nasa-ipsc-1993/NASA-iPSC-1993-3.1-cln.swf.gz"));
  CHECK(trace.format == "swf");
  CHECK(trace.jobs.size() == 18066);
  CHECK(skipped_count(trace, "no run time (run time 0)") == 173);
  CHECK(gpu_hours(trace) == Approx(131732.781944).margin(1e-5));
  // "    1        0     -1   1451  128 ... 1   1  -1 ..."
  CHECK(trace.jobs[0].id == "1");
  CHECK(trace.jobs[0].duration_ms == 1'451'000);
  CHECK(trace.jobs[0].gpus == 128);
  CHECK(trace.strings.str(trace.jobs[0].user) == "1");
  CHECK(trace.strings.str(trace.jobs[0].tenant) == "1");
  CHECK(trace.jobs[0].status == 0);  // -1: unknown
}

TEST_CASE("bundled slices in traces/ read with their documented counts", "[traces]") {
  const std::string dir = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/";
  const Trace philly = read_trace(dir + "philly-6214e9.csv");
  CHECK(philly.format == "native");
  CHECK(philly.jobs.size() == 1985);
  const Trace itp = read_trace(dir + "itp-cluster10.csv");
  CHECK(itp.format == "itp");
  CHECK(itp.jobs.size() == 260);
  const Trace openb = read_trace(dir + "alibaba-openb-pods-2000.csv.gz");
  CHECK(openb.format == "alibaba-openb");
  std::uint64_t openb_skipped = 0;
  for (const auto& entry : openb.skipped) openb_skipped += entry.second;
  CHECK(openb.jobs.size() + openb_skipped == 2000);
  const ClusterSpec nodes =
      parse_cluster_spec("alibaba-openb:" + dir + "alibaba-openb-gpu-nodes.csv");
  CHECK(total_gpus(nodes) == 6212);
  const Trace swf = read_trace(dir + "nasa-ipsc-1993-week1.swf.gz");
  CHECK(swf.format == "swf");
  CHECK(swf.jobs.size() + skipped_count(swf, "no run time (run time 0)") == 1070);
  const Trace vc = read_trace(dir + "philly-vc-51b7ef.csv");
  CHECK(vc.format == "philly-vc");
  CHECK(vc.jobs.size() == 63);
  CHECK(vc.strings.str(vc.jobs[0].tenant) == "philly-vc-51b7ef");  // only "trace_" is stripped
}
