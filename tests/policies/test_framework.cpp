// The policy framework: job progress has one owner (the engine), the changes since the last
// call, the queue view, the what-if cluster, and the bound on runs that make no progress.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "policies/policy_support.hpp"
#include "schedlab/engine.hpp"
#include "schedlab/policy_kit.hpp"

using namespace schedlab;
using namespace schedlab::testing;

// Policies see walltimes, never durations: the types say so.
template <typename T>
concept ShowsDuration = requires(const T& v) {
  v.duration_ms();
}
|| requires(const T& v) {
  v.remaining_work_ms();
};
template <typename T>
concept ShowsTrace = requires(const T& c) {
  c.trace();
}
|| requires(const T& c) {
  c.state(0);
};
static_assert(!ShowsDuration<JobView>);
static_assert(ShowsDuration<JobSpec> == false && requires(const JobSpec& s) { s.duration_ms; });
static_assert(!ShowsTrace<SchedContext>);
static_assert(ShowsTrace<RunView>);

namespace {

RunOptions speed_options(SpeedModel model, double checkpoint_s, double overhead_s) {
  RunOptions options;
  options.speed_model = model;
  options.checkpoint_interval_ms = static_cast<TimeMs>(checkpoint_s * 1000);
  options.restart_overhead_ms = static_cast<TimeMs>(overhead_s * 1000);
  return options;
}

}  // namespace

TEST_CASE("las with the speed model ends: its progress guard counts work at the job's rate",
          "[policies][las][framework]") {
  // On a V100 (speed 0.5, slowdown 2) an attempt needs twice the held time for the same work.
  // A progress guard that ignored the slowdown let las preempt each job before it saved the
  // 30 s its restart costs, so the two jobs swapped forever. Now the run ends; on an A100
  // (speed 1) it ends at 2,340 s as it always did.
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\na,0,1,600\nb,0,1,600\n");
  const std::map<std::string, std::string> params{{"thresholds", "30"}, {"starvation", "1"}};
  const RunOptions options = speed_options(SpeedModel::kGpu, 30, 30);
  const auto v100 = run_checked(trace, "1x1:V100", "las", params, options);
  CHECK(v100.summary["jobs"]["completed"] == 2);
  CHECK(v100.summary["makespan_s"].get<double>() == Approx(3540.0));
  const auto a100 = run_checked(trace, "1x1:A100", "las", params, options);
  CHECK(a100.summary["makespan_s"].get<double>() == Approx(2340.0));
  CHECK(a100.summary["restarts"]["preemptions"] == 38);
}

TEST_CASE("every preempting policy finishes under the full speed model with checkpoints",
          "[policies][framework][speed]") {
  // Mixed GPU speeds and multi-node jobs crossing racks: slowdowns other than 1 everywhere.
  std::string csv = "id,submit_time,gpus,duration,priority,walltime\n";
  for (int i = 0; i < 60; ++i)
    csv += fmt::format("j{},{},{},{},{},{}\n", i, i * 37 % 900, 1 << (i % 5), 300 + i * 97 % 4000,
                       i % 3, 1'000'000);
  const Trace trace = trace_from_csv(csv);
  for (const char* policy : {"las", "preemptive"}) {
    for (double checkpoint_s : {0.0, 60.0, 700.0}) {
      INFO(policy << " checkpoint " << checkpoint_s);
      const auto result = run_checked(
          trace, "2x8:V100,2x8:A100", policy,
          policy == std::string("las")
              ? std::map<std::string, std::string>{{"thresholds", "60"}, {"starvation", "1"}}
              : std::map<std::string, std::string>{},
          speed_options(SpeedModel::kFull, checkpoint_s, 45));
      CHECK(result.summary["jobs"]["completed"] == 60);
    }
  }
}

namespace {

// Records what the framework tells a policy, and starts queued jobs FIFO while they fit.
class ProbePolicy final : public Policy {
 public:
  struct Call {
    TimeMs now_ms;
    std::vector<JobIndex> arrived, requeued, ended, queue;
    bool ended_early, nodes_changed;
  };
  std::vector<Call> calls;
  RunSizes sizes;
  std::vector<std::pair<TimeMs, TimeMs>> done_and_saved;  // of job 0 at each call it runs

  void on_begin(const SchedContext& /*ctx*/, const RunSizes& s) override { sizes = s; }
  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    const Changes& c = ctx.changes();
    Call call{ctx.now(), c.arrived, c.requeued, c.ended, {}, c.ended_early, c.nodes_changed};
    for (const auto& [submit_ms, job] : ctx.queue()) call.queue.push_back(job);
    calls.push_back(call);
    if (ctx.job(0).status() == JobStatus::kRunning)
      done_and_saved.emplace_back(ctx.work_done_ms(0), ctx.work_saved_if_preempted_ms(0));
    // Preempt job 0 once, at 100 s, for the queued job 1; job 0 waits at least until the next
    // call.
    const bool preempting = ctx.now() == 100'000 && ctx.job(0).status() == JobStatus::kRunning;
    if (preempting) decisions.preempt(0);
    std::vector<JobIndex> queued;
    for (const auto& entry : ctx.queue())
      if (!(preempting && entry.second == 0)) queued.push_back(entry.second);
    for (JobIndex job : queued)
      if (!decisions.try_start(job)) break;
    if (ctx.now() < 100'000) decisions.wake_at(100'000);
  }
};

}  // namespace

TEST_CASE("the framework reports the changes since the last call and the queue in submit order",
          "[framework]") {
  // One 2-GPU V100 node (slowdown 2 with the speed model), checkpoints every 20 s.
  // a (2 GPUs, 400 s of work) starts at 0; b (2 GPUs) and c (1 GPU) arrive at 10 and wait.
  // At 100 s a has done 50 s of work (100 s held at slowdown 2) and keeps 40 s (two
  // checkpoints); it is preempted, b starts, a is requeued behind b's place in submit order.
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,walltime\n"
      "a,0,2,400,2000\n"
      "b,10,2,30,100\n"
      "c,10,1,30,100\n");
  ProbePolicy policy;
  Engine engine(trace, Cluster(parse_cluster_spec("1x2:V100")), policy,
                speed_options(SpeedModel::kGpu, 20, 10));
  engine.run();
  CHECK(policy.sizes.jobs == 3);
  CHECK(policy.sizes.nodes == 1);
  CHECK(policy.sizes.gpus == 2);
  REQUIRE(policy.calls.size() >= 4);
  CHECK(policy.calls[0].now_ms == 0);
  CHECK(policy.calls[0].arrived == std::vector<JobIndex>{0});
  CHECK(policy.calls[1].now_ms == 10'000);
  CHECK(policy.calls[1].arrived == std::vector<JobIndex>{1, 2});
  CHECK(policy.calls[1].queue == std::vector<JobIndex>{1, 2});
  CHECK(policy.calls[2].now_ms == 100'000);
  CHECK(policy.calls[2].arrived.empty());
  CHECK(policy.done_and_saved.back() == std::pair<TimeMs, TimeMs>{50'000, 40'000});
  // The next call sees a requeued (an early release) and the queue in submit order.
  const auto& after = policy.calls[3];
  CHECK(after.requeued == std::vector<JobIndex>{0});
  CHECK(after.ended_early);
  CHECK_FALSE(after.nodes_changed);
  CHECK(after.queue.front() == 0);
  const auto finish = engine.states();
  CHECK(finish[0].preemptions == 1);
  CHECK(finish[0].checkpointed_work_ms == 40'000);
}

namespace {

// Swaps the running and the queued job at every call: no attempt ever saves work.
class ThrashPolicy final : public Policy {
 public:
  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    const std::vector<JobIndex> running = ctx.running();
    std::vector<JobIndex> queued;
    for (const auto& entry : ctx.queue()) queued.push_back(entry.second);
    for (JobIndex job : running) decisions.preempt(job);
    for (JobIndex job : queued) decisions.try_start(job);
    decisions.wake_at(ctx.now() + 1);
  }
};

}  // namespace

TEST_CASE("a run whose jobs never save work stops with exit 3 naming the job", "[framework]") {
  // On one GPU each attempt is preempted 1 ms after it starts, inside its 30 s restart overhead
  // (the first attempts keep their 1 ms, no later one keeps anything): the run would never end.
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\na,0,1,600\nb,0,1,600\n");
  ThrashPolicy policy;
  Engine engine(trace, Cluster(parse_cluster_spec("1x1")), policy, RunOptions{});
  CHECK_THROWS_WITH(engine.run(), Catch::Contains("job 'a' was interrupted 10000 times in a row "
                                                  "without reaching a new checkpoint"));
}

namespace {

// Plans with the what-if cluster: releases every running job, holds a node, places, and
// checks that the next call finds the copy equal to the real cluster again.
class PlannerPolicy final : public Policy {
 public:
  int checks = 0;
  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    WhatIf& what_if = ctx.what_if();
    REQUIRE(what_if.cluster().free_gpus() == ctx.cluster().free_gpus());
    for (JobIndex job : ctx.running()) what_if.release(job);
    CHECK(what_if.cluster().free_gpus() ==
          ctx.cluster().free_gpus() + static_cast<std::int64_t>(ctx.running().size()) * 4);
    for (const auto& entry : ctx.queue()) {
      // A real start on GPUs held in the copy takes them over.
      if (auto placement = decisions.find_placement(entry.second)) {
        what_if.hold(*placement);
        decisions.start(entry.second, *placement);
        ++checks;
        break;
      }
    }
  }
};

}  // namespace

TEST_CASE("the what-if cluster is reset after every call and follows real starts", "[framework]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration\n"
      "a,0,4,100\n"
      "b,0,4,100\n"
      "c,50,4,100\n");
  PlannerPolicy policy;
  Engine engine(trace, Cluster(parse_cluster_spec("2x4")), policy, RunOptions{});
  engine.run();  // the engine asserts after each call that the copy equals its cluster
  CHECK(policy.checks == 3);
}
