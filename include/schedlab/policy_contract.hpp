// The contract every policy keeps, as a check any policy can run: a built-in one, a plug-in or a
// Python one (`schedlab check-policy`, docs/writing-policies.md).
//
// Contract: the policy is run over a fixed set of small traces (hand-made corner cases and
// seeded random ones with priorities, tenants and GPU types) and run variants (placements,
// checkpoints and restart overheads, walltime kills off, over-estimates, node failures), each
// run twice, with the invariant observer attached. A run keeps the contract when it ends
// without an error (an illegal decision, a stuck queue, a broken invariant), every job ends
// final, the two runs give byte-identical outputs, restart counts agree with the observed
// preemptions and failures, and, when the policy is declared non-preemptive, nothing is
// preempted and, without node failures, no work is lost. The set of runs depends on nothing but
// this file's fixed seed.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "schedlab/job.hpp"
#include "schedlab/run_options.hpp"

namespace schedlab {

struct PolicyContractOptions {
  std::map<std::string, std::string> params;  // the policy's --param values
  bool never_preempts = false;                // also require zero preemptions
};

struct PolicyContractFailure {
  std::string run;      // "trace 'random 1 on 3x4' on 3x4, variant 'node failures ...'"
  std::string problem;  // what broke, one line
};

struct PolicyContractReport {
  std::string policy;
  std::size_t runs = 0;  // runs checked (each made twice)
  std::vector<PolicyContractFailure> failures;
  bool kept() const { return failures.empty(); }
};

// One trace of the check and the cluster it runs on.
struct PolicyContractCase {
  std::string name;
  Trace trace;
  std::string cluster;  // a cluster spec
};

// One set of run options of the check.
struct PolicyContractVariant {
  std::string name;
  RunOptions options;
};

// The hand-made corner cases (simultaneous arrivals, jobs larger than a node, GPU types).
std::vector<PolicyContractCase> policy_contract_corner_cases();
// The corner cases, then the seeded random traces.
std::vector<PolicyContractCase> policy_contract_cases();
// Defaults; spread with checkpoints and restart overheads; first-fit without walltime kills;
// over-estimated walltimes; node failures.
std::vector<PolicyContractVariant> policy_contract_variants();

// The first contract problem of one run of `policy` (made twice), or "" when it keeps the
// contract. Errors of the run (an illegal decision, a stuck queue, a broken invariant) throw.
std::string policy_contract_problem(const std::string& policy, const PolicyContractCase& c,
                                    const PolicyContractVariant& v,
                                    const PolicyContractOptions& options);

// Runs the contract check of the registered policy `policy`. Throws ConfigError for an unknown
// policy or a bad parameter (before any run); every other problem is a failure in the report.
PolicyContractReport check_policy_contract(const std::string& policy,
                                           const PolicyContractOptions& options = {});

// The report as text: one line when the contract is kept, else a line per failure.
std::string format_policy_contract_report(const PolicyContractReport& report);

}  // namespace schedlab
