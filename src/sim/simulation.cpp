#include "schedlab/simulation.hpp"

#include <chrono>
#include <optional>

#include "schedlab/attempt_log.hpp"
#include "schedlab/metrics.hpp"
#include "schedlab/policy.hpp"

namespace schedlab {

SimulationResult simulate(const Trace& trace, const ClusterSpec& cluster_spec,
                          const SimulationRequest& request,
                          const std::vector<Observer*>& extra_observers) {
  const Cluster cluster(cluster_spec);
  auto policy = make_policy(request.policy, request.params);
  Engine engine(trace, cluster, *policy, request.options);
  MetricsCollector metrics(request.files);
  engine.add_observer(metrics);
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
  info.policy = canonical_policy_name(request.policy);
  info.trace = trace.path;
  info.engine = result.engine;
  info.wall_s = request.reproducible ? 0.0 : wall.count();
  result.summary = metrics.summary_json(info);
  if (request.files) {
    result.jobs_csv = metrics.jobs_csv();
    result.attempts_csv = attempts.csv();
    result.timeseries_csv = metrics.timeseries_csv();
  }
  return result;
}

}  // namespace schedlab
