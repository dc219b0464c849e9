// smallest-first-preemptive — smallest GPU count first; a job that does not fit preempts larger
// jobs. The preempting variant of smallest-first, an example plug-in policy.
//
// Algorithm: queued jobs are ordered by the GPUs they ask for (fewer first), then submit time,
// then trace order, and started in that order while they fit. A job that does not fit may
// preempt running preemptible jobs that ask for strictly more GPUs than it and have run at least
// min_runtime seconds in their current attempt; the victims are the set that frees a valid
// placement with the least work lost (choose_victims, include/schedlab/policy_kit.hpp). The job
// then starts at once; the victims return to the queue and later resume from their last
// checkpoint. A job that can neither fit nor preempt blocks every later job. A job never
// preempts one of its own size or smaller, so no job is preempted by one it preempted.
// Parameters: min_runtime (seconds, 0).
// Citation: shortest-first with preemption by size, cf. the preemptive priority scheduling of
// the Kubernetes scheduler (kubernetes.io/docs/concepts/scheduling-eviction/
// pod-priority-preemption/) with the job's GPU count as its (inverse) priority.
#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <schedlab/error.hpp>
#include <schedlab/policy_kit.hpp>

namespace {

using schedlab::JobIndex;
using schedlab::TimeMs;

class SmallestFirstPreemptive final : public schedlab::Policy {
 public:
  explicit SmallestFirstPreemptive(TimeMs min_runtime_ms) : min_runtime_ms_(min_runtime_ms) {}

  void on_submit(const schedlab::SchedContext& ctx, JobIndex job) override {
    queue_.insert(entry(ctx, job));
  }
  void on_finish(const schedlab::SchedContext& ctx, JobIndex job) override {
    running_.erase(entry(ctx, job));
  }
  void on_requeue(const schedlab::SchedContext& ctx, JobIndex job) override {
    running_.erase(entry(ctx, job));
    queue_.insert(entry(ctx, job));
  }

  void schedule(const schedlab::SchedContext& ctx, schedlab::Decisions& decisions) override {
    TimeMs wake_ms = schedlab::kNever;
    while (!queue_.empty()) {
      const JobIndex job = queue_.begin()->second;
      if (!decisions.try_start(job) && !preempt_for(ctx, decisions, job, wake_ms)) break;
      started(ctx, job);
    }
    if (wake_ms != schedlab::kNever && wake_ms > ctx.now()) decisions.wake_at(wake_ms);
  }

 private:
  // (GPUs, submit time, job): the queue's order, and the running jobs' (largest last).
  using Entry = std::pair<std::pair<int, TimeMs>, JobIndex>;
  static Entry entry(const schedlab::SchedContext& ctx, JobIndex job) {
    return {{ctx.job(job).gpus(), ctx.job(job).submit_ms()}, job};
  }

  void started(const schedlab::SchedContext& ctx, JobIndex job) {
    queue_.erase(entry(ctx, job));
    running_.insert(entry(ctx, job));
  }

  // Preempts the cheapest eligible larger jobs that make room for `job` and starts it; false
  // when they cannot. Records in `wake_ms` when a protected candidate becomes eligible.
  bool preempt_for(const schedlab::SchedContext& ctx, schedlab::Decisions& decisions, JobIndex job,
                   TimeMs& wake_ms) {
    const int gpus = ctx.job(job).gpus();
    std::vector<JobIndex> candidates;
    TimeMs protected_until_ms = schedlab::kNever;
    for (auto it = running_.upper_bound({{gpus, schedlab::kNever}, 0}); it != running_.end();
         ++it) {
      const JobIndex victim = it->second;
      if (!ctx.job(victim).preemptible()) continue;
      const TimeMs eligible_ms =
          schedlab::saturating_add(ctx.job(victim).last_start_ms(), min_runtime_ms_);
      if (eligible_ms > ctx.now()) {
        protected_until_ms = std::min(protected_until_ms, eligible_ms);
        continue;
      }
      candidates.push_back(victim);
    }
    const auto victims =
        candidates.empty() ? std::nullopt : schedlab::choose_victims(ctx, job, candidates);
    if (!victims) {
      wake_ms = std::min(wake_ms, protected_until_ms);
      return false;
    }
    for (const JobIndex victim : *victims) {
      decisions.preempt(victim);
      running_.erase(entry(ctx, victim));
    }
    const bool started_now = decisions.try_start(job);
    SCHEDLAB_ASSERT(started_now, "a job starts once its victims are preempted");
    return true;
  }

  TimeMs min_runtime_ms_;
  std::set<Entry> queue_;
  std::set<Entry> running_;
};

}  // namespace

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "smallest-first-preemptive",
    "fewest GPUs first; a job that does not fit preempts strictly larger jobs with the least "
    "work lost; an example plug-in",
    {{"min_runtime", "0", "seconds a job runs before it may be preempted"}},
    [](const schedlab::PolicyParams& params) {
      return std::make_unique<SmallestFirstPreemptive>(
          schedlab::param_seconds_ms(params, "smallest-first-preemptive", "min_runtime", 0));
    }})
