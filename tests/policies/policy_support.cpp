#include "policies/policy_support.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "schedlab/cluster.hpp"
#include "support/invariant_observer.hpp"

namespace schedlab::testing {

std::map<std::string, double> run_starts(const std::string& csv, const std::string& cluster,
                                         const std::string& policy,
                                         const std::map<std::string, std::string>& params,
                                         RunOptions options) {
  const Trace trace = trace_from_csv(csv);
  return start_times(run_checked(trace, cluster, policy, params, std::move(options)).jobs_csv);
}

std::map<std::string, std::string> column_by_id(const SimulationResult& result,
                                                const std::string& name) {
  const auto ids = jobs_column(result.jobs_csv, "job_id");
  const auto values = jobs_column(result.jobs_csv, name);
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < ids.size(); ++i) out[ids[i]] = values[i];
  return out;
}

void ReservationRecorder::on_advance(const RunView& ctx, TimeMs /*from_ms*/, TimeMs /*to_ms*/) {
  for (const auto& [job, start_ms] : source_.reservations()) {
    if (ctx.state(job).status != JobStatus::kQueued)
      throw std::logic_error(
          fmt::format("reservation listed for job '{}', which is not queued", ctx.spec(job).id));
    promised_[job].push_back(start_ms);
  }
}

void ReservationRecorder::on_end(const RunView& ctx) {
  on_advance(ctx, 0, 0);
}

void LostWorkOracle::on_job(const RunView& ctx, JobIndex job, JobTransition what) {
  if (tracks_.empty()) {
    tracks_.resize(ctx.trace().jobs.size());
    lost_gpu_ms_.assign(ctx.trace().jobs.size(), 0);
  }
  const JobSpec& spec = ctx.spec(job);
  Track& t = tracks_[job];
  const TimeMs now_ms = ctx.now();
  switch (what) {
    case JobTransition::kStarted:
      t.overhead_ms = t.started_before ? ctx.state(job).restart_overhead_ms : 0;
      t.start_ms = now_ms;
      break;
    case JobTransition::kPreempted:
    case JobTransition::kFailed:
    case JobTransition::kCompleted:
    case JobTransition::kWalltimeReached: {
      const TimeMs elapsed_ms = now_ms - t.start_ms;
      const TimeMs overhead_spent_ms = std::min(elapsed_ms, t.overhead_ms);
      const TimeMs progress_ms =
          std::min(elapsed_ms - overhead_spent_ms, spec.duration_ms - t.saved_ms);
      lost_gpu_ms_[job] += overhead_spent_ms * spec.gpus;
      t.started_before = true;
      if (what != JobTransition::kPreempted && what != JobTransition::kFailed) break;
      const TimeMs done_ms = t.saved_ms + progress_ms;
      const TimeMs interval_ms = ctx.state(job).checkpoint_interval_ms;
      // Checkpoints sit at whole multiples of the interval of work. Without an interval, a
      // preemption takes one on the spot and a failure keeps the last one.
      TimeMs saved_ms = what == JobTransition::kPreempted ? done_ms : t.saved_ms;
      if (interval_ms > 0) saved_ms = std::max(t.saved_ms, done_ms - done_ms % interval_ms);
      lost_gpu_ms_[job] += (done_ms - saved_ms) * spec.gpus;
      t.saved_ms = saved_ms;
      break;
    }
    case JobTransition::kSubmitted:
    case JobTransition::kRejected: break;
  }
}

EngineRun run_engine(const Trace& trace, const std::string& cluster, const std::string& policy,
                     const std::map<std::string, std::string>& params, const RunOptions& options,
                     const std::vector<Observer*>& observers) {
  EngineRun run;
  run.policy = make_policy(policy, params);
  const Cluster built(parse_cluster_spec(cluster));
  Engine engine(trace, built, *run.policy, options);
  for (auto* observer : observers) engine.add_observer(*observer);
  run.stats = engine.run();
  run.states = engine.states();
  return run;
}

std::string random_trace_csv(Rng& rng, const RandomTraceSpec& spec) {
  std::string out = "id,submit_time,gpus,duration,walltime,priority,preemptible\n";
  double clock_s = 0;
  for (int i = 0; i < spec.jobs; ++i) {
    clock_s += rng.exponential(spec.mean_interarrival_s);
    int gpus = static_cast<int>(rng.uniform_int(1, spec.max_gpus));
    if (spec.whole_nodes_of) {
      gpus = static_cast<int>(rng.uniform_int(1, std::max(1, spec.max_gpus / spec.node_gpus))) *
             spec.node_gpus;
    }
    const auto duration_s =
        static_cast<double>(rng.uniform_int(1, static_cast<std::int64_t>(spec.max_duration_s)));
    const double factor = 1.0 + rng.uniform() * (spec.max_overestimate - 1.0);
    const auto walltime_s = static_cast<std::int64_t>(std::ceil(duration_s * factor));
    const auto priority = rng.uniform_int(0, spec.priorities - 1);
    const bool preemptible = rng.uniform() < spec.preemptible_share;
    out += fmt::format("j{},{:.3f},{},{},{},{},{}\n", i, clock_s, gpus, duration_s, walltime_s,
                       priority, preemptible ? 1 : 0);
  }
  return out;
}

}  // namespace schedlab::testing
