// GPU sharing in the engine (--gpu-sharing PLACEMENT): hand-checked starts of jobs that share a
// GPU or wait for CPU, rejections, the sharing metrics, whole-GPU results unchanged, and the
// sharing invariants held by every built-in policy under every shared placement.
#include <cstdio>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/policy_contract.hpp"
#include "schedlab/random.hpp"
#include "schedlab/shared_placement.hpp"
#include "schedlab/trace_writer.hpp"
#include "support/builders.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

RunOptions sharing(const std::string& placement) {
  RunOptions options;
  options.gpu_sharing = placement;
  return options;
}

// A cluster JSON file with CPU and memory per node; returns its path.
std::string cluster_json(int nodes, int gpus, std::int64_t cpu_milli, std::int64_t memory_mib) {
  const std::string path = fresh_temp_dir("sharing-cluster") + "/cluster.json";
  const std::string text =
      fmt::format(R"({{"node_groups": [{{"count": {}, "gpus_per_node": {}, "gpu_type": "V100", )"
                  R"("cpu_milli": {}, "memory_mib": {}}}]}})",
                  nodes, gpus, cpu_milli, memory_mib);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return path;
}

// Random jobs: a third ask for part of a GPU, all for CPU and memory, some for whole GPUs.
Trace random_sharing_trace(std::uint64_t seed, int jobs) {
  Rng rng(seed);
  std::string csv =
      "id,submit_time,gpus,duration,walltime,priority,gpu_milli,cpu_milli,memory_mib\n";
  for (int j = 0; j < jobs; ++j) {
    const bool part = rng.uniform_int(0, 2) == 0;
    const std::int64_t gpus = part ? 1 : rng.uniform_int(1, 6);
    const std::int64_t duration = rng.uniform_int(1, 200);
    csv += fmt::format("j{},{},{},{},{},{},{},{},{}\n", j, rng.uniform_int(0, 400), gpus, duration,
                       duration + rng.uniform_int(0, 50), rng.uniform_int(0, 3),
                       part ? std::to_string(rng.uniform_int(1, 999)) : "",
                       rng.uniform_int(0, 12) * 1000, rng.uniform_int(0, 64) * 1024);
  }
  return trace_from_csv(csv, fmt::format("sharing-{}.csv", seed));
}

}  // namespace

TEST_CASE("gpu sharing: two halves share one GPU, the third waits for one of them", "[sharing]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,gpu_milli\n"
      "a,0,1,10,500\n"
      "b,0,1,10,500\n"
      "c,0,1,10,500\n");
  for (const auto kind : kAllSharedPlacements) {
    const auto shared =
        run_checked(trace, "1x1:V100", "fifo", {}, sharing(shared_placement_name(kind)));
    const auto starts = start_times(shared.jobs_csv);
    CHECK(starts.at("a") == 0);
    CHECK(starts.at("b") == 0);
    CHECK(starts.at("c") == 10);
    // [0, 10): 1000 of 1000 milli held, no GPU partly used; [10, 20): 500 held, one partly used.
    const auto& s = shared.summary["sharing"];
    CHECK(s["placement"] == shared_placement_name(kind));
    CHECK(s["mean_allocated_gpu_share"].get<double>() == Approx(0.75));
    CHECK(s["mean_partly_used_gpus"].get<double>() == Approx(0.5));
    CHECK(s["mean_idle_gpus"].get<double>() == Approx(0.0));
  }
  // Without sharing, each half holds the whole GPU.
  const auto whole = run_checked(trace, "1x1:V100", "fifo");
  const auto starts = start_times(whole.jobs_csv);
  CHECK(starts.at("b") == 10);
  CHECK(starts.at("c") == 20);
  CHECK_FALSE(whole.summary.contains("sharing"));
}

TEST_CASE("gpu sharing: a job waits for CPU although a GPU is idle", "[sharing]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,cpu_milli,memory_mib\n"
      "a,0,1,10,3000,1024\n"
      "b,0,1,10,3000,1024\n"
      "c,0,1,10,1000,1024\n");
  const std::string cluster = cluster_json(1, 2, 4000, 65536);
  const auto shared = run_checked(trace, cluster, "fifo", {}, sharing("best-fit"));
  auto starts = start_times(shared.jobs_csv);
  CHECK(starts.at("a") == 0);
  CHECK(starts.at("b") == 10);  // 3000 + 3000 > 4000 CPU milli
  CHECK(starts.at("c") == 10);  // fifo keeps order: c waits behind b, then both fit
  // Without sharing CPU is not counted: both GPUs busy at once.
  starts = start_times(run_checked(trace, cluster, "fifo").jobs_csv);
  CHECK(starts.at("b") == 0);
  CHECK(starts.at("c") == 10);
}

TEST_CASE("gpu sharing: jobs no node can hold are rejected with their reason", "[sharing]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,cpu_milli\n"
      "big-cpu,0,1,10,9000\n"
      "ok,0,1,10,1000\n");
  const auto result =
      run_checked(trace, cluster_json(2, 2, 8000, 1024), "fifo", {}, sharing("fgd"));
  CHECK(result.summary["jobs"]["rejected"] == 1);
  CHECK(jobs_column(result.jobs_csv, "final_state")[1] == "COMPLETED_SUCCESSFULLY");
}

TEST_CASE("gpu sharing: whole-GPU traces give the same jobs with the sharing model on",
          "[sharing]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    Rng rng(seed);
    std::string csv = "id,submit_time,gpus,duration,walltime\n";
    for (int j = 0; j < 60; ++j) {
      const std::int64_t d = rng.uniform_int(1, 100);
      csv += fmt::format("j{},{},{},{},{}\n", j, rng.uniform_int(0, 200), rng.uniform_int(1, 12), d,
                         d + rng.uniform_int(0, 30));
    }
    const Trace trace = trace_from_csv(csv);
    for (const std::string policy : {"fifo", "easy-backfill", "las", "preemptive"}) {
      const auto off = run_checked(trace, "3x4:V100,2x8:A100", policy);
      const auto on = run_checked(trace, "3x4:V100,2x8:A100", policy, {}, sharing("fgd"));
      CHECK(on.jobs_csv == off.jobs_csv);
    }
  }
}

TEST_CASE("gpu sharing: every built-in policy keeps the contract and the sharing invariants",
          "[sharing][contract]") {
  std::vector<PolicyContractCase> cases;
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    cases.push_back({fmt::format("sharing {}", seed), random_sharing_trace(seed, 80),
                     cluster_json(4, 4, 16000, 65536)});
  for (const auto& info : registered_policies()) {
    if (info.name.rfind("py:", 0) == 0) continue;
    for (const std::string placement : {"fgd", "best-fit", "random-fit", "gpu-packing"}) {
      PolicyContractVariant variant{"gpu sharing " + placement, sharing(placement)};
      for (const auto& c : cases) {
        INFO(info.name << " / " << placement << " / " << c.name);
        CHECK(policy_contract_problem(info.name, c, variant, {}) == "");
      }
    }
  }
}

TEST_CASE("gpu sharing: the native writer keeps the sharing columns", "[sharing][traces]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,gpu_milli,cpu_milli,memory_mib\n"
      "a,0,1,10,250,1500,2048\n"
      "b,1,2,10,,0,0\n"
      "c,2,1,10,1000,,\n");
  CHECK(trace.jobs[0].gpu_milli == 250);
  CHECK(trace.jobs[2].gpu_milli == 0);  // 1000 = a whole GPU
  const std::string text = format_native_trace(trace);
  CHECK(text ==
        "id,submit_time,gpus,duration,gpu_milli,cpu_milli,memory_mib\n"
        "a,0.000,1,10.000,250,1500,2048\n"
        "b,1.000,2,10.000,,0,0\n"
        "c,2.000,1,10.000,,0,0\n");
  const Trace again = trace_from_csv(text);
  CHECK(again.jobs[0].cpu_milli == 1500);
  CHECK(again.jobs[0].memory_mib == 2048);
  CHECK_THROWS_WITH(trace_from_csv("id,submit_time,gpus,duration,gpu_milli\na,0,2,10,500\n"),
                    Catch::Contains("column 'gpu_milli': expected 1000 for a job of more than one "
                                    "GPU (a fraction needs gpus = 1), got '500'"));
}

TEST_CASE("gpu sharing: easy-backfill counts a shared GPU back by T only when all its jobs end",
          "[sharing][backfill]") {
  // GPU 0 holds a (ends at 20) and b (ends at 1000); c, d, f hold GPUs 1, 2, 3 until 50, 60, 5.
  // h (3 GPUs) gets T = 60 and P = {1, 2, 3}. When f ends as planned at 5, P is chosen again
  // among the GPUs back by T: GPU 0 is not one of them, since b holds it past T.
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,gpu_milli\n"
      "a,0,1,20,500\n"
      "b,0,1,1000,500\n"
      "c,0,1,50,\n"
      "d,0,1,60,\n"
      "f,0,1,5,\n"
      "h,1,3,10,\n");
  const auto result = run_checked(trace, "1x4:V100", "easy-backfill", {}, sharing("best-fit"));
  const auto starts = start_times(result.jobs_csv);
  CHECK(starts.at("b") == 0);
  CHECK(starts.at("h") == 60);
  CHECK(jobs_column(result.jobs_csv, "allocated_resources")[5] == "1-3");
}
