// preemptive — priority scheduling with preemption of lower-priority jobs.
//
// Algorithm: queued jobs are ordered by priority (larger first), then submit time, then trace
// order, and started in that order while they fit. When a job does not fit, it may preempt
// running jobs that are preemptible, of strictly lower priority, and have run at least
// min_runtime seconds in their current attempt: the victims are the set that frees a valid
// placement with the least work lost (see choose_victims in policy_kit.hpp: progress since the
// last checkpoint plus the restart overhead, in GPU-time). The job then starts at once; the
// victims return to the queue in their priority order and later resume from their last
// checkpoint. A job that can neither fit nor preempt blocks every later job (blocking=true,
// the default) or is skipped (blocking=false). Equal priorities never preempt each other, so
// no job can be preempted by one it preempted.
// When a job is blocked only by victims still inside their min_runtime, the policy wakes
// itself when the first of them becomes eligible.
// Parameters: min_runtime (seconds, 0), blocking (true).
// Data structures: a std::set queue keyed (-priority, submit, index); running jobs in a
// std::set keyed (priority, index), so the eligible victims are a prefix and a job with no
// lower-priority job running costs O(1) to rule out.
// Citation: preemptive priority scheduling as in the Kubernetes scheduler's preemption
// (kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/); victims chosen
// by least lost work after checkpointing, cf. Gu et al., "Tiresias", NSDI 2019, sec. 4.
#include <algorithm>
#include <set>

#include "schedlab/error.hpp"
#include "schedlab/greedy_policy.hpp"
#include "schedlab/policy_kit.hpp"

namespace schedlab {
namespace {

constexpr const char* kName = "preemptive";

class PreemptivePolicy final : public Policy {
 public:
  PreemptivePolicy(TimeMs min_runtime_ms, bool blocking)
      : min_runtime_ms_(min_runtime_ms), blocking_(blocking) {}

  void on_submit(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }

  void on_finish(const SchedContext& ctx, JobIndex job) override { stopped(ctx, job); }

  void on_requeue(const SchedContext& ctx, JobIndex job) override {
    stopped(ctx, job);
    enqueue(ctx, job);
  }

  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    TimeMs wake_ms = kNever;
    // Later jobs have no higher priority, so no more victims or free GPUs (see FailedSizes).
    FailedSizes failed(ctx.cluster());
    for (auto it = queue_.begin(); it != queue_.end();) {
      const JobIndex job = it->second;
      const std::int64_t priority = ctx.job(job).priority();
      const bool victims_exist = !running_.empty() && running_.begin()->first < priority;
      // With no GPU free and no victim, nothing later can start.
      if (!ctx.capacity_left() && !victims_exist) break;
      ++it;  // `job` may leave the queue below
      const GpuTypeIndex type = ctx.job(job).gpu_type();
      const int gpus = ctx.job(job).gpus();
      if (failed.rules_out(type, gpus)) continue;
      if (fits(ctx, job) && decisions.try_start(job)) {
        started(ctx, job);
        continue;
      }
      if (victims_exist && preempt_for(ctx, decisions, job, wake_ms)) {
        failed.clear();  // the victims may free more GPUs than the job takes
        continue;
      }
      if (blocking_) break;
      failed.add(type, gpus);
    }
    if (wake_ms != kNever && wake_ms > ctx.now()) decisions.wake_at(wake_ms);
  }

 private:
  using Entry = std::pair<OrderKey, JobIndex>;

  static bool fits(const SchedContext& ctx, JobIndex job) { return ctx.may_start_now(job); }

  static Entry entry_of(const SchedContext& ctx, JobIndex job) {
    return {{-ctx.job(job).priority(), ctx.job(job).submit_ms()}, job};
  }

  void enqueue(const SchedContext& ctx, JobIndex job) { queue_.insert(entry_of(ctx, job)); }

  void stopped(const SchedContext& ctx, JobIndex job) {
    running_.erase({ctx.job(job).priority(), job});
  }

  void started(const SchedContext& ctx, JobIndex job) {
    queue_.erase(entry_of(ctx, job));
    running_.emplace(ctx.job(job).priority(), job);
  }

  // Preempts the cheapest eligible victims that make room for `job`, then starts it. Records
  // in `wake_ms` when a protected victim becomes eligible.
  bool preempt_for(const SchedContext& ctx, Decisions& decisions, JobIndex job, TimeMs& wake_ms) {
    // Victims are planned in whole GPUs: a job asking for part of a GPU, CPU or memory waits
    // for room instead (docs/gpu-sharing.md).
    if (ctx.job(job).uses_sharing()) return false;
    const std::int64_t priority = ctx.job(job).priority();
    const GpuTypeIndex type = ctx.job(job).gpu_type();
    std::vector<JobIndex> candidates;
    std::int64_t reachable = ctx.cluster().free_gpus_of(type);
    TimeMs protected_until_ms = kNever;
    for (auto it = running_.begin(); it != running_.end() && it->first < priority; ++it) {
      const JobIndex victim = it->second;
      if (!ctx.job(victim).preemptible()) continue;
      const TimeMs eligible_ms = saturating_add(ctx.job(victim).last_start_ms(), min_runtime_ms_);
      if (eligible_ms > ctx.now()) {
        protected_until_ms = std::min(protected_until_ms, eligible_ms);
        continue;
      }
      candidates.push_back(victim);
      reachable += ctx.job(victim).gpus();
    }
    auto victims =
        reachable >= ctx.job(job).gpus() ? choose_victims(ctx, job, candidates) : std::nullopt;
    if (!victims) {
      wake_ms = std::min(wake_ms, protected_until_ms);
      return false;
    }
    for (JobIndex victim : *victims) {
      decisions.preempt(victim);
      stopped(ctx, victim);
    }
    const bool ok = decisions.try_start(job);
    SCHEDLAB_ASSERT(ok, "a job starts once its victims are preempted");
    started(ctx, job);
    return true;
  }

  TimeMs min_runtime_ms_;
  bool blocking_;
  std::set<Entry> queue_;
  std::set<std::pair<std::int64_t, JobIndex>> running_;  // (priority, job)
};

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    schedlab::kName,
    "priority order; a job that does not fit preempts strictly lower-priority preemptible jobs, "
    "choosing the victims with the least work lost",
    {{"min_runtime", "0", "seconds a job runs before it may be preempted", "s"},
     {"blocking", "true",
      "true: a job that can neither fit nor preempt blocks later ones; false: they may start",
      "boolean"}},
    [](const schedlab::PolicyParams& params) -> std::unique_ptr<schedlab::Policy> {
      const schedlab::TimeMs min_runtime_ms =
          schedlab::param_seconds_ms(params, schedlab::kName, "min_runtime", 0);
      return std::make_unique<schedlab::PreemptivePolicy>(min_runtime_ms,
                                                          params.get_bool("blocking", true));
    },
    false,
    schedlab::PolicyCardFacts{
        .algorithm = "Queued jobs in order of priority (larger first), then submit time, then "
                     "trace order. A "
                     "job that does not fit preempts running preemptible jobs of strictly lower "
                     "priority that "
                     "have run min_runtime seconds, choosing the victims with the least work lost, "
                     "and starts "
                     "at once; a job that can neither fit nor preempt blocks later ones "
                     "(blocking=false: they "
                     "may start).",
        .citation =
            "preemptive priority scheduling as in the Kubernetes scheduler's preemption "
            "(kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/); victims "
            "by least lost work after checkpointing, cf. Gu et al., \"Tiresias\", NSDI 2019, sec. "
            "4",
        .inputs_stated = true,
        .needs_priorities = true,
        .preempts = true,
    }})
