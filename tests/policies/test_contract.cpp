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
#include "schedlab/policy_contract.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Policies allowed to preempt. Every other registered policy must never restart a job.
const std::set<std::string> kPreempting = {"preemptive", "las"};

// The library's corner cases, then random traces of this test's own (over-estimated walltimes,
// non-preemptible jobs).
std::vector<PolicyContractCase> contract_cases() {
  std::vector<PolicyContractCase> cases = policy_contract_corner_cases();
  Rng rng(20240611);
  for (int i = 0; i < 3; ++i) {
    RandomTraceSpec spec;
    spec.jobs = 30;
    spec.max_gpus = 8;
    spec.max_overestimate = 3.0;
    spec.priorities = 4;
    spec.preemptible_share = 0.7;
    std::string name = fmt::format("random {} on 3x4", i);
    cases.push_back({name, trace_from_csv(random_trace_csv(rng, spec), name), "3x4"});
    spec.max_gpus = 16;
    spec.mean_interarrival_s = 5;
    name = fmt::format("random {} on 2x8 under load", i);
    cases.push_back({name, trace_from_csv(random_trace_csv(rng, spec), name), "2x8"});
  }
  return cases;
}

}  // namespace

TEST_CASE("every registered policy keeps the engine contract", "[policies][contract]") {
  const auto policies = registered_policies();
  REQUIRE(policies.size() >= 7);
  const auto cases = contract_cases();
  const auto variants = policy_contract_variants();
  for (const auto& info : policies) {
    PolicyContractOptions options;
    options.never_preempts = kPreempting.count(info.name) == 0;
    for (const auto& c : cases) {
      for (const auto& v : variants) {
        INFO("policy " << info.name << ", trace '" << c.name << "' on " << c.cluster << ", "
                       << v.name);
        CHECK(policy_contract_problem(info.name, c, v, options) == "");
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
