// check_policy_contract: the policy contract check of include/schedlab/policy_contract.hpp.
#include "schedlab/policy_contract.hpp"

#include <exception>
#include <utility>

#include <fmt/format.h>

#include "schedlab/cluster.hpp"
#include "schedlab/error.hpp"
#include "schedlab/invariant_observer.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/synthetic.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

std::vector<PolicyContractCase> policy_contract_corner_cases() {
  const auto native = [](const std::string& name, const std::string& csv,
                         const std::string& cluster) {
    return PolicyContractCase{name, read_native_trace(name, csv), cluster};
  };
  std::vector<PolicyContractCase> cases;
  cases.push_back(native("single job", "id,submit_time,gpus,duration\nonly,5,3,40\n", "1x4"));
  cases.push_back(native("simultaneous arrivals",
                         "id,submit_time,gpus,duration,priority\n"
                         "a,0,2,30,1\nb,0,2,30,0\nc,0,4,10,2\nd,0,1,5,1\ne,0,3,20,0\n",
                         "1x4"));
  cases.push_back(native("jobs larger than a node",
                         "id,submit_time,gpus,duration,walltime\n"
                         "a,0,6,50,80\nb,1,3,20,20\nc,2,8,10,30\nd,3,1,100,100\ne,4,5,5,10\n",
                         "2x4"));
  cases.push_back(native("typed jobs on a mixed cluster",
                         "id,submit_time,gpus,duration,gpu_type,priority\n"
                         "a,0,4,50,V100,0\nb,1,8,20,A100,1\nc,2,2,30,,2\nd,3,6,10,,0\n"
                         "e,4,4,40,V100,3\nf,5,1,15,A100,1\ng,6,12,5,,2\n",
                         "2x4:V100,1x8:A100"));
  return cases;
}

// The seeds are part of the contract.
std::vector<PolicyContractCase> policy_contract_cases() {
  std::vector<PolicyContractCase> cases = policy_contract_corner_cases();
  for (std::uint64_t i = 0; i < 3; ++i) {
    SyntheticTraceSpec spec;
    spec.jobs = 30;
    spec.seed = 20240611 + i;
    spec.mean_interarrival_s = 20;
    spec.duration_median_s = 60;
    spec.duration_sigma = 1.0;
    spec.duration_max_s = 400;
    spec.gang_mix = {{1, 0.4}, {2, 0.2}, {4, 0.2}, {8, 0.2}};
    spec.priority_mix = {{0, 1}, {1, 1}, {2, 1}, {3, 1}};
    spec.tenants = 3;
    cases.push_back({fmt::format("random {} on 3x4", i), generate_synthetic_trace(spec), "3x4"});
    spec.seed += 100;
    spec.mean_interarrival_s = 5;
    spec.gang_mix.emplace_back(16, 0.1);
    cases.push_back(
        {fmt::format("random {} on 2x8 under load", i), generate_synthetic_trace(spec), "2x8"});
  }
  return cases;
}

std::vector<PolicyContractVariant> policy_contract_variants() {
  std::vector<PolicyContractVariant> out(5);
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

std::string policy_contract_problem(const std::string& policy, const PolicyContractCase& c,
                                    const PolicyContractVariant& v,
                                    const PolicyContractOptions& options) {
  SimulationRequest request;
  request.policy = policy;
  request.params = options.params;
  request.options = v.options;
  request.reproducible = true;
  InvariantObserver invariants;
  const ClusterSpec cluster = parse_cluster_spec(c.cluster);
  const SimulationResult first = simulate(c.trace, cluster, request, {&invariants});
  const SimulationResult again = simulate(c.trace, cluster, request);
  if (first.jobs_csv != again.jobs_csv) return "a second run gives another jobs.csv";
  if (first.attempts_csv != again.attempts_csv) return "a second run gives another attempts.csv";
  if (first.timeseries_csv != again.timeseries_csv)
    return "a second run gives another timeseries.csv";
  if (first.summary.dump() != again.summary.dump()) return "a second run gives another summary";
  const auto& restarts = first.summary["restarts"];
  const auto preemptions = restarts["preemptions"].get<std::uint64_t>();
  if (preemptions != invariants.preemptions())
    return fmt::format("summary counts {} preemptions, {} were observed", preemptions,
                       invariants.preemptions());
  const auto total = restarts["total"].get<std::uint64_t>();
  if (total != invariants.preemptions() + invariants.failures())
    return fmt::format("summary counts {} restarts, {} preemptions and {} failures were observed",
                       total, invariants.preemptions(), invariants.failures());
  if (options.never_preempts && invariants.preemptions() != 0)
    return fmt::format("{} preemptions from a policy declared non-preemptive",
                       invariants.preemptions());
  if (options.never_preempts && invariants.failures() == 0 &&
      first.summary["gpu_hours"]["lost"].get<double>() != 0.0)
    return fmt::format("{} GPU-hours lost by a policy declared non-preemptive, without failures",
                       first.summary["gpu_hours"]["lost"].get<double>());
  const auto& jobs = first.summary["jobs"];
  const auto final_jobs = jobs["completed"].get<std::uint64_t>() +
                          jobs["rejected"].get<std::uint64_t>() +
                          restarts["walltime_kills"].get<std::uint64_t>();
  if (final_jobs != c.trace.jobs.size())
    return fmt::format("{} of {} jobs completed, were rejected or killed at their walltime",
                       final_jobs, c.trace.jobs.size());
  return "";
}

PolicyContractReport check_policy_contract(const std::string& policy,
                                           const PolicyContractOptions& options) {
  // Unknown policy, unknown parameter or bad value: ConfigError.
  const ResolvedPolicy resolved = resolve_policy(policy, options.params);
  resolved.make();
  PolicyContractReport report;
  report.policy = resolved.info.name;
  for (const PolicyContractCase& c : policy_contract_cases()) {
    for (const PolicyContractVariant& v : policy_contract_variants()) {
      ++report.runs;
      std::string problem;
      try {
        problem = policy_contract_problem(report.policy, c, v, options);
      } catch (const std::exception& e) {
        problem = e.what();
      }
      if (!problem.empty())
        report.failures.push_back(
            {fmt::format("trace '{}' on {}, variant '{}'", c.name, c.cluster, v.name),
             std::move(problem)});
    }
  }
  return report;
}

std::string format_policy_contract_report(const PolicyContractReport& report) {
  if (report.kept())
    return fmt::format("{}: contract kept in {} runs (each made twice)\n", report.policy,
                       report.runs);
  std::string out = fmt::format("{}: contract broken in {} of {} runs\n", report.policy,
                                report.failures.size(), report.runs);
  for (const PolicyContractFailure& failure : report.failures)
    out += fmt::format("  {}: {}\n", failure.run, failure.problem);
  return out;
}

}  // namespace schedlab
