// attempts.csv against summary.json and jobs.csv on runs with preemptions and failures.
#include <cmath>
#include <map>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/random.hpp"
#include "schedlab/simulation.hpp"
#include "support/builders.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

struct AttemptTotals {
  double held_gpu_hours = 0;
  std::map<std::string, int> attempts;  // per job id
  std::map<std::string, int> by_reason;
};

AttemptTotals add_up(const std::string& csv) {
  AttemptTotals totals;
  const auto ids = jobs_column(csv, "job_id");
  const auto starts = jobs_column(csv, "start_time");
  const auto ends = jobs_column(csv, "end_time");
  const auto gpus = jobs_column(csv, "gpus");
  const auto reasons = jobs_column(csv, "end_reason");
  for (std::size_t i = 0; i < ids.size(); ++i) {
    totals.held_gpu_hours +=
        (std::stod(ends[i]) - std::stod(starts[i])) * std::stod(gpus[i]) / 3600.0;
    ++totals.attempts[ids[i]];
    ++totals.by_reason[reasons[i]];
  }
  return totals;
}

std::string random_jobs(Rng& rng, int jobs) {
  std::string csv = "id,submit_time,gpus,duration\n";
  double clock_s = 0;
  for (int i = 0; i < jobs; ++i) {
    clock_s += rng.exponential(300);
    const int gpus = 1 << rng.uniform_int(0, 3);
    csv += fmt::format("j{},{:.3f},{},{}\n", i, clock_s, gpus, rng.uniform_int(60, 20000));
  }
  return csv;
}

}  // namespace

TEST_CASE("attempts.csv adds up to summary.json with preemptions and failures",
          "[metrics][attempts]") {
  Rng rng(77);
  for (const std::string policy : {"las", "fifo"}) {
    const Trace trace = trace_from_csv(random_jobs(rng, 300));
    SimulationRequest request;
    request.policy = policy;
    request.reproducible = true;
    request.options.failure_rate_per_1000_node_days = 400;
    request.options.repair_ms = 2 * 3'600'000;
    request.options.checkpoint_interval_ms = 900'000;
    const SimulationResult result = simulate(trace, parse_cluster_spec("4x8:V100"), request);
    AttemptTotals totals = add_up(result.attempts_csv);
    INFO(policy);
    CHECK(std::abs(totals.held_gpu_hours - result.summary["gpu_hours"]["busy"].get<double>()) <
          1e-5);
    const auto ids = jobs_column(result.jobs_csv, "job_id");
    const auto restarts = jobs_column(result.jobs_csv, "restarts");
    for (std::size_t i = 0; i < ids.size(); ++i)
      CHECK(totals.attempts[ids[i]] == std::stoi(restarts[i]) + 1);
    const auto& r = result.summary["restarts"];
    CHECK(totals.by_reason["preempted"] == r["preemptions"].get<int>());
    CHECK(totals.by_reason["failed"] == r["failures"].get<int>());
    CHECK(totals.by_reason["completed"] + totals.by_reason["walltime"] ==
          static_cast<int>(ids.size()));
    CHECK(r["failures"].get<int>() > 0);
    if (policy != "fifo") CHECK(r["preemptions"].get<int>() > 0);
  }
}

TEST_CASE("attempts.csv: rows, reasons and allocations of a hand-checked preemption",
          "[metrics][attempts]") {
  // One 2-GPU node, las with one threshold at 30 s. a (2 GPUs, 100 s) at 0; b (1 GPU, 10 s) at
  // 40: a has 40 s of service, b none, so b preempts a at 40 (checkpoint at preemption). b ends
  // at 50; a restarts at 50, pays the 30 s restart overhead (the default) and its last 60 s of
  // work, and ends at 140.
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\na,0,2,100\nb,40,1,10\n");
  SimulationRequest request;
  request.policy = "las";
  request.params = {{"thresholds", "30"}, {"starvation", "0"}};
  request.reproducible = true;
  const SimulationResult result = simulate(trace, parse_cluster_spec("1x2:V100"), request);
  CHECK(result.attempts_csv ==
        "job_id,attempt,start_time,end_time,gpus,allocated_resources,nodes,end_reason\n"
        "a,1,0.000,40.000,2,0-1,1,preempted\n"
        "a,2,50.000,140.000,2,0-1,1,completed\n"
        "b,1,40.000,50.000,1,0,1,completed\n");
}
