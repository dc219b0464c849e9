// drf: a hand-worked two-type example, weighted max-min on one type, and preemption for a
// tenant below its fair share that never comes before a job's earliest useful preemption time.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "policies/policy_support.hpp"
#include "policies/tenant_support.hpp"
#include "schedlab/observer.hpp"
#include "schedlab/random.hpp"
#include "support/invariant_observer.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

std::string two_tenants(const char* a, double weight_a, const char* b, double weight_b) {
  return fmt::format(
      R"({{"tenants":[{{"name":"{}","quota":1,"weight":{}}},{{"name":"{}","quota":1,"weight":{}}}]}})",
      a, weight_a, b, weight_b);
}

}  // namespace

TEST_CASE("drf: a tenant's share of another GPU type counts (hand-worked example)",
          "[tenants][drf]") {
  // Cluster: 8 A100 (one node) and 4 H100 (one node). Tenant p (index 0) asks for one 3-GPU
  // H100 job and eight 1-GPU A100 jobs; q (index 1) for eight 1-GPU A100 jobs, all at 0.
  // At 0, both shares are 0 and the tie goes to p: ph starts, so p's dominant share is
  // H100 3/4 = 0.75. q is then served while its share k/8 is below 0.75: six jobs, reaching
  // 6/8 = 0.75. The tie goes to p again, whose A100 jobs leave its dominant share at 0.75: pa1
  // and pa2 take the last two A100 GPUs. (Per-type max-min fairness would split A100 4/4.)
  // At 100 the eight A100 jobs end: q (share 0) gets qa7 and qa8 first, then p (0.75) the
  // remaining six A100 GPUs for pa3..pa8.
  std::string csv = "id,submit_time,gpus,duration,tenant,gpu_type\nph,0,3,1000,p,H100\n";
  for (int k = 1; k <= 8; ++k) csv += fmt::format("pa{},0,1,100,p,A100\n", k);
  for (int k = 1; k <= 8; ++k) csv += fmt::format("qa{},0,1,100,q,A100\n", k);
  const auto result = run_checked(trace_from_csv(csv), "1x8:A100,1x4:H100", "drf", {},
                                  with_tenants(two_tenants("p", 1, "q", 1)));
  const auto s = start_times(result.jobs_csv);
  CHECK(s.at("ph") == 0);
  for (int k = 1; k <= 6; ++k) CHECK(s.at(fmt::format("qa{}", k)) == 0);
  for (int k = 7; k <= 8; ++k) CHECK(s.at(fmt::format("qa{}", k)) == 100);
  for (int k = 1; k <= 2; ++k) CHECK(s.at(fmt::format("pa{}", k)) == 0);
  for (int k = 3; k <= 8; ++k) CHECK(s.at(fmt::format("pa{}", k)) == 100);
}

TEST_CASE("drf: on one GPU type, weights 2:1 give saturating tenants 2/3 and 1/3",
          "[tenants][drf]") {
  // 64 GPUs; each tenant has 6,000 queued 1-GPU jobs of 0.5-1.5 h from time 0, so both wait
  // throughout the first 72 h. Weighted max-min keeps a at 2/3 of the busy GPUs.
  std::string csv = "id,submit_time,gpus,duration,tenant\n";
  for (int k = 0; k < 6000; ++k)
    for (int t = 0; t < 2; ++t)
      csv += fmt::format("{}{},0,1,{},{}\n", t == 0 ? "a" : "b", k,
                         1800 + (k * 7919 + t * 1777) % 3600, t == 0 ? "a" : "b");
  const auto result =
      run_checked(trace_from_csv(csv), "8x8", "drf", {}, with_tenants(two_tenants("a", 2, "b", 1)));
  const auto used = gpu_seconds_until(result, 72LL * 3600 * 1000);
  const double a = used.at("a") / (used.at("a") + used.at("b"));
  INFO("tenant a received " << a);
  CHECK(a == Approx(2.0 / 3.0).margin(0.02));
  CHECK((used.at("a") + used.at("b")) / (64.0 * 72 * 3600) == Approx(1.0).margin(0.005));
}

TEST_CASE("drf: without preemption a newcomer waits, with it, it takes its fair share at once",
          "[tenants][drf][preemption]") {
  // One 8-GPU node, equal weights. a starts eight 1-GPU jobs at 0 (1000 s each); b submits four
  // at 100. Two active tenants: fair share 1/2 each. b (share 0) preempts a's most recently
  // started jobs (all started at 0: highest index first, a8, a7, a6, a5) one per b job until b
  // holds 4/8 = 1/2; a keeps 4/8, its fair share, so it never drops below it.
  std::string csv = "id,submit_time,gpus,duration,walltime,tenant\n";
  for (int k = 1; k <= 8; ++k) csv += fmt::format("a{},0,1,1000,3000,a\n", k);
  for (int k = 1; k <= 4; ++k) csv += fmt::format("b{},100,1,1000,3000,b\n", k);
  const Trace trace = trace_from_csv(csv);
  {
    const auto result =
        run_checked(trace, "1x8", "drf", {}, with_tenants(two_tenants("a", 1, "b", 1)));
    const auto s = start_times(result.jobs_csv);
    for (int k = 1; k <= 4; ++k) CHECK(s.at(fmt::format("b{}", k)) == 1000);
    CHECK(result.summary["restarts"]["preemptions"] == 0);
  }
  const auto result = run_checked(trace, "1x8", "drf", {{"preempt", "true"}},
                                  with_tenants(two_tenants("a", 1, "b", 1)));
  const auto s = start_times(result.jobs_csv);
  for (int k = 1; k <= 4; ++k) CHECK(s.at(fmt::format("b{}", k)) == 100);
  const auto preemptions = column_by_id(result, "preemptions");
  for (int k = 1; k <= 4; ++k) CHECK(preemptions.at(fmt::format("a{}", k)) == "0");
  for (int k = 5; k <= 8; ++k) CHECK(preemptions.at(fmt::format("a{}", k)) == "1");
  CHECK(result.summary["restarts"]["preemptions"] == 4);
}

TEST_CASE("drf: preemption waits for the victims' earliest useful preemption time",
          "[tenants][drf][preemption]") {
  // As above, but b arrives at 10. With the default 30 s restart overhead, a's jobs (first
  // attempts, started at 0) first keep as much work as a preemption costs at 30 s: the policy
  // wakes itself then and b's four jobs start at 30, not 10.
  std::string csv = "id,submit_time,gpus,duration,walltime,tenant\n";
  for (int k = 1; k <= 8; ++k) csv += fmt::format("a{},0,1,1000,3000,a\n", k);
  for (int k = 1; k <= 4; ++k) csv += fmt::format("b{},10,1,1000,3000,b\n", k);
  const auto result = run_checked(trace_from_csv(csv), "1x8", "drf", {{"preempt", "true"}},
                                  with_tenants(two_tenants("a", 1, "b", 1)));
  const auto s = start_times(result.jobs_csv);
  for (int k = 1; k <= 4; ++k) CHECK(s.at(fmt::format("b{}", k)) == 30);
  CHECK(result.summary["restarts"]["preemptions"] == 4);
}

namespace {

// Records each attempt's earliest useful preemption time at its start (the engine is also the
// SchedContext policies see) and checks every preemption against it.
class PreemptionGuard : public Observer {
 public:
  void on_job(const RunView& view, JobIndex job, JobTransition what) override {
    const auto* ctx = dynamic_cast<const SchedContext*>(&view);
    REQUIRE(ctx != nullptr);
    if (what == JobTransition::kStarted) {
      earliest_[job] = ctx->earliest_useful_preemption_ms(job);
    } else if (what == JobTransition::kPreempted) {
      ++preemptions_;
      INFO("job " << view.spec(job).id << " preempted at " << view.now() << " ms");
      CHECK(view.now() >= earliest_.at(job));
    }
  }
  int preemptions() const { return preemptions_; }

 private:
  std::map<JobIndex, TimeMs> earliest_;
  int preemptions_ = 0;
};

}  // namespace

TEST_CASE("drf: random runs with preemption never preempt before the earliest useful time",
          "[tenants][drf][preemption][properties]") {
  int total_preemptions = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    Rng rng(seed);
    std::string csv = "id,submit_time,gpus,duration,walltime,priority,tenant,gpu_type\n";
    double submit_s = 0;
    for (int j = 0; j < 50; ++j) {
      submit_s += std::round(rng.exponential(15.0));
      const auto duration_s = rng.uniform_int(20, 600);
      const int tenant = static_cast<int>(rng.uniform_int(0, 2));
      // Tenant 0 uses A100 only, tenant 1 H100 only, tenant 2 either.
      const char* type = tenant == 0 ? "A100" : tenant == 1 ? "H100" : "";
      csv += fmt::format("j{},{},{},{},{},{},t{},{}\n", j, submit_s, rng.uniform_int(1, 4),
                         duration_s, duration_s * 3, rng.uniform_int(0, 1), tenant, type);
    }
    const std::string tenants =
        R"({"tenants":[{"name":"t0","quota":1,"weight":1},{"name":"t1","quota":1,"weight":2},)"
        R"({"name":"t2","quota":1,"weight":1}]})";
    InvariantObserver invariants;
    PreemptionGuard guard;
    SimulationRequest request;
    request.policy = "drf";
    request.params = {{"preempt", "true"}};
    request.options = with_tenants(tenants);
    request.options.restart_overhead_ms = static_cast<TimeMs>(rng.uniform_int(0, 60)) * 1000;
    request.reproducible = true;
    const auto result = simulate(trace_from_csv(csv), parse_cluster_spec("2x4:A100,1x4:H100"),
                                 request, {&invariants, &guard});
    INFO("seed " << seed);
    CHECK(result.summary["jobs"]["completed"].get<int>() +
              result.summary["restarts"]["walltime_kills"].get<int>() ==
          50);
    total_preemptions += guard.preemptions();
  }
  CHECK(total_preemptions > 10);
}

TEST_CASE("drf: a tie goes to the tenant whose head job was submitted first, whatever the names",
          "[tenants][drf]") {
  // One 2-GPU node; each tenant has one 2-GPU job of 100 s at time 0, zed's first in the trace.
  // Both shares are 0: the tie goes to zed's job (same submit time, lower trace index) however
  // the tenants are named or listed; it went to the tenant listed first before.
  const Trace trace =
      trace_from_csv("id,submit_time,gpus,duration,tenant\nz1,0,2,100,zed\na1,0,2,100,alpha\n");
  for (const char* tenants :
       {R"({"tenants":[{"name":"alpha","quota":1},{"name":"zed","quota":1}]})",
        R"({"tenants":[{"name":"zed","quota":1},{"name":"alpha","quota":1}]})"}) {
    for (const char* preempt : {"false", "true"}) {
      INFO(tenants << " preempt=" << preempt);
      const auto starts = start_times(
          run_checked(trace, "1x2:A100", "drf", {{"preempt", preempt}}, with_tenants(tenants))
              .jobs_csv);
      CHECK(starts.at("z1") == 0);
      CHECK(starts.at("a1") == 100);
    }
  }
}
