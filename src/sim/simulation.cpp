#include "schedlab/simulation.hpp"

#include <chrono>
#include <memory>
#include <optional>

#include "isolated_baseline.hpp"
#include "schedlab/attempt_log.hpp"
#include "schedlab/error.hpp"
#include "schedlab/metrics.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/resample.hpp"
#include "schedlab/sharing_metrics.hpp"
#include "schedlab/tenant_metrics.hpp"
#include "schedlab/trace_fingerprint.hpp"

namespace schedlab {

SimulationResult simulate(const Trace& trace, const ClusterSpec& cluster_spec,
                          const SimulationRequest& request,
                          const std::vector<Observer*>& extra_observers) {
  // The trace's workload, or one drawn from it by the seed (--resample, resample.hpp).
  std::optional<Trace> resampled;
  if (request.options.resample.kind != ResampleKind::kNone)
    resampled = resample_trace(trace, request.options.resample, request.options.seed);
  const Trace& workload = resampled ? *resampled : trace;
  const Cluster cluster(cluster_spec);
  // The policy is looked up once; everything below asks `resolved`.
  const ResolvedPolicy resolved = resolve_policy(request.policy, request.params);
  auto policy = resolved.make();
  // A policy that schedules by tenant reports tenants even without --tenants, as `equal`.
  RunOptions options = request.options;
  if (!options.tenants && resolved.info.uses_tenants)
    options.tenants = std::make_shared<const TenantsSpec>(load_tenants_spec("equal"));
  Engine engine(workload, cluster, *policy, options);
  MetricsCollector metrics(request.files);
  engine.add_observer(metrics);
  // Per-tenant metrics when the run reports tenants (docs/tenants.md).
  std::optional<TenantMetrics> tenant_metrics;
  if (engine.tenants().given()) {
    engine.add_observer(tenant_metrics.emplace(request.files));
    metrics.add_series_columns(*tenant_metrics);
  }
  // GPU sharing metrics when the run shares GPUs (docs/gpu-sharing.md).
  std::optional<SharingMetrics> sharing_metrics;
  if (options.gpu_sharing_on()) {
    engine.add_observer(sharing_metrics.emplace());
    metrics.add_series_columns(*sharing_metrics);
  }
  AttemptLog attempts;
  if (request.files) engine.add_observer(attempts);
  for (auto* observer : extra_observers) engine.add_observer(*observer);
  std::optional<ProgressObserver> progress;
  if (request.progress) engine.add_observer(progress.emplace(request.progress));
  const auto started = std::chrono::steady_clock::now();
  SimulationResult result;
  result.engine = engine.run();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - started;
  RunInfo info;
  info.policy = resolved.info.name;
  info.policy_params = resolved.params_in_force();
  info.trace = trace.path;
  info.trace_fingerprint = trace_fingerprint(trace);
  info.engine = result.engine;
  info.wall_s = request.reproducible ? 0.0 : wall.count();
  result.summary = metrics.summary_json(info);
  if (request.isolated_baseline) {
    if (!tenant_metrics)
      throw ConfigError(
          "--isolated-baseline: the run has no tenants (give --tenants or a tenant policy)");
    std::vector<std::optional<double>> rho;
    for (const auto& isolated : run_isolated_baselines(workload, cluster_spec, request, resolved,
                                                       engine.tenants(), engine.states()))
      rho.push_back(isolated.rho);
    tenant_metrics->set_finish_time_fairness(std::move(rho));
  }
  if (!request.job_classes.empty()) {
    const std::vector<ClassedJob> jobs = metrics.classed_jobs();
    for (const JobClassKind kind : request.job_classes)
      result.summary[std::string("by_") + job_class_kind_name(kind)] =
          job_class_json(jobs, kind, request.class_bounds);
  }
  if (sharing_metrics) result.summary["sharing"] = sharing_metrics->summary_json();
  if (tenant_metrics) {
    result.summary["tenants"] = tenant_metrics->tenants_json();
    result.summary["fairness"] = tenant_metrics->fairness_json();
    // tenants.csv prints the figures of these two objects.
    require_finite_numbers(result.summary["tenants"], "summary.json tenants");
    require_finite_numbers(result.summary["fairness"], "summary.json fairness");
    if (request.files) result.tenants_csv = tenant_metrics->tenants_csv();
  }
  if (request.files) {
    result.jobs_csv = metrics.jobs_csv();
    result.attempts_csv = attempts.csv();
    result.timeseries_csv = metrics.timeseries_csv();
  }
  return result;
}

std::vector<std::pair<std::string, std::string_view>> run_output_files(
    const SimulationResult& result, const std::string& summary_text) {
  std::vector<std::pair<std::string, std::string_view>> files = {
      {"summary.json", summary_text},
      {"jobs.csv", result.jobs_csv},
      {"attempts.csv", result.attempts_csv},
      {"timeseries.csv", result.timeseries_csv}};
  if (!result.tenants_csv.empty()) files.emplace_back("tenants.csv", result.tenants_csv);
  return files;
}

}  // namespace schedlab
