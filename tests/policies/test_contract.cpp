// The contract every registered policy keeps, checked over small hand-made and randomized
// traces, clusters, placements and options, with the invariant observer attached:
// no GPU double-booked, capacity never exceeded, every job final, byte-identical reruns,
// restarts only from preemptions and node failures, and no preemption at all from the policies
// that never preempt.
#include <catch2/catch.hpp>

#include <set>

#include <fmt/format.h>

#include "policies/policy_support.hpp"
#include "schedlab/error.hpp"
#include "support/invariant_observer.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Policies allowed to preempt. Every other registered policy must never restart a job.
const std::set<std::string> kPreempting = {"preemptive", "las"};

struct Case {
  std::string name;
  std::string csv;
  std::string cluster;
};

std::vector<Case> contract_cases() {
  std::vector<Case> cases = {
      {"single job", "id,submit_time,gpus,duration\nonly,5,3,40\n", "1x4"},
      {"simultaneous arrivals",
       "id,submit_time,gpus,duration,priority\n"
       "a,0,2,30,1\nb,0,2,30,0\nc,0,4,10,2\nd,0,1,5,1\ne,0,3,20,0\n",
       "1x4"},
      {"jobs larger than a node",
       "id,submit_time,gpus,duration,walltime\n"
       "a,0,6,50,80\nb,1,3,20,20\nc,2,8,10,30\nd,3,1,100,100\ne,4,5,5,10\n",
       "2x4"},
      {"typed jobs on a mixed cluster",
       "id,submit_time,gpus,duration,gpu_type,priority\n"
       "a,0,4,50,V100,0\nb,1,8,20,A100,1\nc,2,2,30,,2\nd,3,6,10,,0\ne,4,4,40,V100,3\n"
       "f,5,1,15,A100,1\ng,6,12,5,,2\n",
       "2x4:V100,1x8:A100"},
  };
  Rng rng(20240611);
  for (int i = 0; i < 3; ++i) {
    RandomTraceSpec spec;
    spec.jobs = 30;
    spec.max_gpus = 8;
    spec.max_overestimate = 3.0;
    spec.priorities = 4;
    spec.preemptible_share = 0.7;
    cases.push_back({fmt::format("random {} on 3x4", i), random_trace_csv(rng, spec), "3x4"});
    spec.max_gpus = 16;
    spec.mean_interarrival_s = 5;
    cases.push_back(
        {fmt::format("random {} on 2x8 under load", i), random_trace_csv(rng, spec), "2x8"});
  }
  return cases;
}

struct Variant {
  std::string name;
  RunOptions options;
};

// Counts attempts ended by node failures.
class FailureCounter : public Observer {
 public:
  void on_job(const RunView& /*ctx*/, JobIndex /*job*/, JobTransition what) override {
    if (what == JobTransition::kFailed) ++failures_;
  }
  std::uint64_t failures() const { return failures_; }

 private:
  std::uint64_t failures_ = 0;
};

std::vector<Variant> variants() {
  std::vector<Variant> out(5);
  out[0].name = "defaults";
  out[1].name = "spread, checkpoints every 20 s, 5 s overhead";
  out[1].options.placement = "spread";
  out[1].options.checkpoint_interval_ms = 20'000;
  out[1].options.restart_overhead_ms = 5'000;
  out[2].name = "first-fit, no walltime kill";
  out[2].options.placement = "first-fit";
  out[2].options.walltime_kill = false;
  out[3].name = "factor:2 estimates";
  parse_estimate("factor:2", out[3].options);
  out[4].name = "node failures (about one per node every 20 minutes, 2 minute repairs)";
  out[4].options.failure_rate_per_1000_node_days = 72'000;
  out[4].options.repair_ms = 120'000;
  out[4].options.failures_text = "rate=72000,repair=0.0333";
  out[4].options.checkpoint_interval_ms = 15'000;
  return out;
}

}  // namespace

TEST_CASE("every registered policy keeps the engine contract", "[policies][contract]") {
  const auto policies = registered_policies();
  REQUIRE(policies.size() >= 7);
  for (const auto& info : policies) {
    for (const auto& c : contract_cases()) {
      const Trace trace = trace_from_csv(c.csv, c.name);
      for (const auto& v : variants()) {
        INFO("policy " << info.name << ", trace '" << c.name << "' on " << c.cluster << ", "
                       << v.name);
        InvariantObserver invariants;
        FailureCounter failures;
        SimulationRequest request;
        request.policy = info.name;
        request.options = v.options;
        request.reproducible = true;
        const auto first =
            simulate(trace, parse_cluster_spec(c.cluster), request, {&invariants, &failures});
        const auto again = simulate(trace, parse_cluster_spec(c.cluster), request);
        CHECK(first.summary.dump() == again.summary.dump());
        CHECK(first.jobs_csv == again.jobs_csv);
        CHECK(first.timeseries_csv == again.timeseries_csv);
        const auto& restarts = first.summary["restarts"];
        CHECK(restarts["preemptions"].get<std::uint64_t>() == invariants.preemptions());
        CHECK(restarts["total"].get<std::uint64_t>() ==
              invariants.preemptions() + failures.failures());
        if (kPreempting.count(info.name) == 0) {
          CHECK(invariants.preemptions() == 0);
          if (failures.failures() == 0)
            CHECK(first.summary["gpu_hours"]["lost"].get<double>() == 0.0);
        }
        const auto& jobs = first.summary["jobs"];
        CHECK(jobs["completed"].get<std::uint64_t>() + jobs["rejected"].get<std::uint64_t>() +
                  restarts["walltime_kills"].get<std::uint64_t>() ==
              trace.jobs.size());
      }
    }
  }
}

TEST_CASE("policy parameters are checked", "[policies][contract]") {
  CHECK_THROWS_AS(make_policy("priority", {{"aging", "-1"}}), InputError);
  CHECK_THROWS_AS(make_policy("priority", {{"blocking", "maybe"}}), InputError);
  CHECK_THROWS_AS(make_policy("priority", {{"agin", "10"}}), InputError);
  CHECK_THROWS_AS(make_policy("preemptive", {{"min_runtime", "soon"}}), InputError);
  CHECK_THROWS_AS(make_policy("las", {{"thresholds", "100,50"}}), InputError);
  CHECK_THROWS_AS(make_policy("las", {{"thresholds", "0"}}), InputError);
  CHECK_THROWS_AS(make_policy("las", {{"thresholds", ""}}), InputError);
  CHECK_THROWS_AS(make_policy("las", {{"starvation", "-2"}}), InputError);
  CHECK_THROWS_AS(make_policy("easy-backfill", {{"depth", "3"}}), InputError);
  CHECK_NOTHROW(make_policy("las", {{"thresholds", "60, 600,6000"}, {"starvation", "0"}}));
  CHECK_NOTHROW(make_policy("priority", {{"aging", "0.5"}, {"blocking", "false"}}));
}
