#include <catch2/catch.hpp>

#include "schedlab/engine.hpp"
#include "schedlab/error.hpp"
#include "schedlab/metrics.hpp"
#include "support/builders.hpp"
#include "support/invariant_observer.hpp"

using namespace schedlab;
using namespace schedlab::testing;

TEST_CASE("fifo: hand-checked start times with head-of-line blocking", "[fifo][engine]") {
  // Cluster 2x4. a takes 2 GPUs of node 0; b (4) goes to node 1; c (4) must wait for a whole
  // node; d (1) fits now but FIFO blocks it behind c.
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration\n"
      "a,0,2,100\n"
      "b,0,4,50\n"
      "c,10,4,30\n"
      "d,20,1,5\n");
  const auto result = run_checked(trace, "2x4");
  const auto starts = start_times(result.jobs_csv);
  CHECK(starts.at("a") == 0.0);
  CHECK(starts.at("b") == 0.0);
  CHECK(starts.at("c") == 50.0);  // node 1 frees at 50
  CHECK(starts.at("d") == 50.0);  // behind c, then best-fit onto node 0 (2 free)
  CHECK(jobs_column(result.jobs_csv, "allocated_resources") ==
        std::vector<std::string>{"0-1", "4-7", "4-7", "2"});
  CHECK(jobs_column(result.jobs_csv, "finish_time") ==
        std::vector<std::string>{"100.000", "50.000", "80.000", "55.000"});
}

TEST_CASE("fifo: equal submit times keep file order, rows need not be sorted", "[fifo][engine]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration\n"
      "late,100,1,10\n"
      "x,0,1,10\n"
      "y,0,1,10\n"
      "z,0,1,10\n");
  const auto result = run_checked(trace, "1x2");
  const auto starts = start_times(result.jobs_csv);
  CHECK(starts.at("x") == 0.0);
  CHECK(starts.at("y") == 0.0);
  CHECK(starts.at("z") == 10.0);
  CHECK(starts.at("late") == 100.0);
  // Rows stay in trace order.
  CHECK(jobs_column(result.jobs_csv, "job_id") == std::vector<std::string>{"late", "x", "y", "z"});
  CHECK(jobs_column(result.jobs_csv, "allocated_resources") ==
        std::vector<std::string>{"0", "0", "1", "0"});
}

TEST_CASE("completions at an instant are applied before arrivals and before the policy runs",
          "[fifo][engine]") {
  // a ends at 10 exactly when b arrives: b starts at 10 on a's GPUs.
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\na,0,8,10\nb,10,8,5\n");
  const auto result = run_checked(trace, "1x8");
  CHECK(start_times(result.jobs_csv).at("b") == 10.0);
  CHECK(result.summary["wait_s"]["max"].get<double>() == 0.0);
  CHECK(result.engine.instants == 3);  // 0, 10, 15
  CHECK(result.engine.events == 4);
}

TEST_CASE("jobs no placement could satisfy are rejected at submit and never block",
          "[fifo][engine]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,gpu_type\n"
      "big,0,17,10,\n"
      "typed,0,9,10,H100\n"
      "unknown,0,1,10,TPU\n"
      "ok,1,4,10,\n");
  const auto result = run_checked(trace, "1x8:A100,1x8:H100");
  CHECK(jobs_column(result.jobs_csv, "final_state") ==
        std::vector<std::string>{"REJECTED", "REJECTED", "REJECTED", "COMPLETED_SUCCESSFULLY"});
  CHECK(jobs_column(result.jobs_csv, "starting_time") ==
        std::vector<std::string>{"", "", "", "1.000"});
  CHECK(result.summary["jobs"]["rejected"] == 3);
  CHECK(result.summary["jobs"]["completed"] == 1);
  const auto& reasons = result.summary["jobs"]["rejected_reasons"];
  CHECK(reasons["needs more GPUs than the cluster has"] == 1);
  CHECK(reasons["needs more GPUs of its gpu_type than the cluster has"] == 1);
  CHECK(reasons["its gpu_type has no GPUs in the cluster"] == 1);
}

TEST_CASE("a gpu_type constraint is honoured by placement", "[fifo][engine]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,gpu_type\n"
      "h,0,4,10,H100\n"
      "any,0,8,10,\n");
  const auto result = run_checked(trace, "1x8:A100,1x8:H100");
  CHECK(jobs_column(result.jobs_csv, "allocated_resources") ==
        std::vector<std::string>{"8-11", "0-7"});
}

namespace {

// A broken policy that never starts anything.
class IdlePolicy final : public Policy {
 public:
  void schedule(const SchedContext&, Decisions&) override {}
};

// A broken policy that starts a job on GPUs that are already taken.
class DoubleBookingPolicy final : public Policy {
 public:
  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    for (JobIndex j = 0; j < ctx.job_count(); ++j)
      if (ctx.job(j).status() == JobStatus::kQueued) decisions.start(j, {{0, 0x1}});
  }
};

}  // namespace

TEST_CASE("a run that cannot finish fails naming the stuck jobs instead of hanging", "[engine]") {
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\nj1,0,1,10\nj2,5,1,10\n");
  IdlePolicy policy;
  Engine engine(trace, Cluster(parse_cluster_spec("1x8")), policy, RunOptions{});
  CHECK_THROWS_WITH(engine.run(),
                    "run cannot finish at t=5 s: 2 job(s) queued with nothing left to "
                    "happen (policy never starts them): j1, j2");
}

TEST_CASE("the engine refuses illegal policy decisions", "[engine]") {
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\nj1,0,1,10\nj2,0,1,10\n");
  DoubleBookingPolicy policy;
  Engine engine(trace, Cluster(parse_cluster_spec("1x8")), policy, RunOptions{});
  CHECK_THROWS_WITH(engine.run(),
                    "policy cannot start job 'j2' at 0 ms: placement names GPUs that are not "
                    "free, do not exist, or is not sorted by node");
}

TEST_CASE("invariant observer catches GPUs held behind the cluster's back",
          "[engine][invariants]") {
  // Feed the observer a forged history: a job claims a GPU the cluster never allocated.
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\nj1,0,1,10\nj2,0,1,10\n");
  IdlePolicy policy;
  Engine engine(trace, Cluster(parse_cluster_spec("1x8")), policy, RunOptions{});
  struct Forger : Observer {
    InvariantObserver inner;
    void on_begin(const RunView& ctx) override { inner.on_begin(ctx); }
    void on_job(const RunView& ctx, JobIndex job, JobTransition what) override {
      if (what != JobTransition::kSubmitted) return;
      auto& state = const_cast<JobState&>(ctx.state(job));
      state.placement = {{0, 0x1}};
      state.status = JobStatus::kRunning;
      inner.on_job(ctx, job, JobTransition::kStarted);
    }
  } forger;
  engine.add_observer(forger);
  CHECK_THROWS_WITH(engine.run(), "invariant observer: cluster says 0 busy GPUs, jobs hold 1");
}

TEST_CASE("walltime kill and the estimate modes", "[engine]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,walltime\n"
      "short,0,1,100,50\n"
      "fine,0,1,100,150\n"
      "none,0,1,100,\n");
  SECTION("killed at its walltime by default") {
    const auto result = run_checked(trace, "1x8");
    CHECK(jobs_column(result.jobs_csv, "final_state") ==
          std::vector<std::string>{"COMPLETED_WALLTIME_REACHED", "COMPLETED_SUCCESSFULLY",
                                   "COMPLETED_SUCCESSFULLY"});
    CHECK(jobs_column(result.jobs_csv, "finish_time") ==
          std::vector<std::string>{"50.000", "100.000", "100.000"});
    CHECK(jobs_column(result.jobs_csv, "requested_time") ==
          std::vector<std::string>{"50.000", "150.000", "100.000"});
    CHECK(result.summary["restarts"]["walltime_kills"] == 1);
  }
  SECTION("--no-walltime-kill lets it finish") {
    RunOptions options;
    options.walltime_kill = false;
    const auto result = run_checked(trace, "1x8", "fifo", {}, options);
    CHECK(jobs_column(result.jobs_csv, "finish_time") ==
          std::vector<std::string>{"100.000", "100.000", "100.000"});
  }
  SECTION("factor estimates apply only to jobs without a walltime") {
    RunOptions options;
    parse_estimate("factor:2.5", options);
    const auto result = run_checked(trace, "1x8", "fifo", {}, options);
    CHECK(jobs_column(result.jobs_csv, "requested_time") ==
          std::vector<std::string>{"50.000", "150.000", "250.000"});
    CHECK(result.summary["options"]["estimate"] == "factor:2.5");
  }
  SECTION("column estimates require a walltime on every job") {
    RunOptions options;
    parse_estimate("column", options);
    CHECK_THROWS_WITH(
        run_checked(trace, "1x8", "fifo", {}, options),
        "test.csv:4: column 'walltime': job 'none' has none, and --estimate column requires one");
  }
  CHECK_THROWS_WITH(
      [] {
        RunOptions o;
        parse_estimate("factor:0", o);
      }(),
      "--estimate 'factor:0': factor must be a number > 0");
  CHECK_THROWS_WITH(
      [] {
        RunOptions o;
        parse_estimate("guess", o);
      }(),
      "--estimate 'guess': expected exact, factor:X or column");
}

TEST_CASE("policy registry: unknown names and parameters are input errors", "[engine][policy]") {
  CHECK_THROWS_WITH(make_policy("nope"),
                    Catch::StartsWith("--policy: unknown policy 'nope' (known: "));
  CHECK_THROWS_WITH(make_policy("fifo", {{"depth", "3"}}),
                    "--param depth=3: policy 'fifo' has no parameter 'depth' (parameters: none)");
  CHECK_THROWS_WITH(parse_param_list({"novalue"}), "--param 'novalue': expected key=value");
  CHECK(parse_param_list({"a=1", "b = x"}) ==
        std::map<std::string, std::string>{{"a", "1"}, {"b", "x"}});
}

TEST_CASE("policy registry: a resolved policy answers every question a run asks of the registry",
          "[engine][policy]") {
  const ResolvedPolicy priority = resolve_policy("Priority", {{"aging", "2h"}});
  CHECK(priority.info.name == "priority");
  CHECK_FALSE(priority.info.uses_tenants);
  CHECK(priority.make() != nullptr);
  // Declared defaults fill in; a time with a unit is recorded in seconds, as "7200" would be.
  const auto in_force = priority.params_in_force();
  CHECK(in_force.at("aging") == "7200");
  CHECK(in_force.size() == priority.info.params.size());
  CHECK(resolve_policy("priority", {{"aging", "7200"}}).params_in_force() == in_force);
  // A value of a parameter with another unit is kept as given.
  const ResolvedPolicy fair_share = resolve_policy("fair_share", {{"blocking", "true"}});
  CHECK(fair_share.info.name == "fair-share");
  CHECK(fair_share.info.uses_tenants);
  CHECK(fair_share.params_in_force().at("blocking") == "true");
  CHECK(fair_share.params_in_force().at("half_life") == "604800");
  CHECK_THROWS_WITH(resolve_policy("fifo", {{"depth", "3"}}),
                    "--param depth=3: policy 'fifo' has no parameter 'depth' (parameters: none)");
}
