#include "schedlab/engine.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "../models/cluster_model.hpp"
#include "../models/node_failures.hpp"
#include "../models/placement_speed.hpp"
#include "../models/power_states.hpp"
#include "gpu_sharing_state.hpp"
#include "schedlab/error.hpp"
#include "schedlab/event_queue.hpp"
#include "schedlab/failure_model.hpp"
#include "schedlab/power_model.hpp"
#include "schedlab/speed_model.hpp"
#include "what_if_cluster.hpp"

namespace schedlab {

class Engine::Impl final : public SchedContext, public RunView, public Decisions, ModelHost {
 public:
  Impl(const Trace& trace, const Cluster& cluster, Policy& policy, const RunOptions& options)
      : trace_(trace),
        cluster_(cluster),
        policy_(policy),
        options_(options),
        placement_(make_placement(options.placement)),
        what_if_(cluster_, *placement_, states_),
        tenants_(resolve_tenants(options.tenants.get(), trace, cluster_)),
        tenant_usage_(tenants_.size(), cluster_.gpu_types().size()) {
    const std::size_t n = trace.jobs.size();
    SCHEDLAB_ASSERT(n < 0xFFFFFFFFu, "job count fits a JobIndex");
    states_.resize(n);
    job_type_.resize(n, kAnyGpuType);
    running_pos_.assign(n, kNotRunning);
    for (JobIndex j = 0; j < n; ++j) {
      const JobSpec& spec = trace.jobs[j];
      JobState& state = states_[j];
      state.remaining_work_ms = spec.duration_ms;
      state.walltime_ms = effective_walltime(spec);
      // Each job's checkpoint and restart settings: its trace column, else the run's option.
      state.checkpoint_interval_ms = spec.checkpoint_interval_ms != kUnsetMs
                                         ? spec.checkpoint_interval_ms
                                         : options.checkpoint_interval_ms;
      state.restart_overhead_ms = spec.restart_overhead_ms != kUnsetMs
                                      ? spec.restart_overhead_ms
                                      : options.restart_overhead_ms;
      if (spec.gpu_type != 0) {
        const std::string& name = trace.strings.str(spec.gpu_type);
        const auto type = cluster_.find_gpu_type(name);
        job_type_[j] = type ? *type : kUnknownGpuType;
      }
    }
    arrival_order_.resize(n);
    for (JobIndex j = 0; j < n; ++j) arrival_order_[j] = j;
    std::stable_sort(arrival_order_.begin(), arrival_order_.end(), [&](JobIndex a, JobIndex b) {
      return trace.jobs[a].submit_ms < trace.jobs[b].submit_ms;
    });
    events_.reserve(1024);
    set_jobs(trace.jobs, states_, job_type_, options.gpu_sharing_on());
    init_cluster_models();
    if (options.gpu_sharing_on()) {
      sharing_ = std::make_unique<GpuSharingState>(trace, cluster_, job_type_, options);
      what_if_.set_sharing(sharing_.get(), &trace.jobs);
    }
  }

  // --- SchedContext and RunView ---
  TimeMs now() const override { return now_; }
  const Cluster& cluster() const override { return cluster_; }
  const RunOptions& options() const override { return options_; }
  const std::vector<JobIndex>& running() const override { return running_; }
  std::size_t queued_jobs() const override { return queued_jobs_; }
  std::int64_t queued_gpus() const override { return queued_gpus_; }

  // --- RunView ---
  const Trace& trace() const override { return trace_; }
  const JobState& state(JobIndex job) const override { return states_[job]; }
  GpuTypeIndex job_gpu_type(JobIndex job) const override { return job_type_[job]; }

  // --- SchedContext ---
  const StringPool& strings() const override { return trace_.strings; }
  std::size_t job_count() const override { return states_.size(); }
  const PlacementStrategy& placement() const override { return *placement_; }
  WhatIf& what_if() const override { return what_if_; }
  bool may_start_now(JobIndex job) const override {
    if (sharing_) return sharing_->may_fit_now(job, cluster_);
    return SchedContext::may_start_now(job);
  }
  bool capacity_left() const override {
    return cluster_.free_gpus() > 0 || (sharing_ && sharing_->snapshot().partly_used_gpus > 0);
  }
  const SharingSnapshot* sharing() const override {
    if (!sharing_) return nullptr;
    sharing_->sync_nodes(cluster_);
    return &sharing_->snapshot();
  }
  void check_sharing_invariants() const override {
    if (sharing_) sharing_->check_invariants(cluster_);
  }
  const Changes& changes() const override { return changes_; }
  const TenantTable& tenants() const override { return tenants_; }
  const TenantUsage& tenant_usage() const override { return tenant_usage_; }

  const QueueView& queue() const override {
    if (!queue_view_on_) {  // built on first use, kept from then on
      queue_view_on_ = true;
      for (JobIndex j = 0; j < states_.size(); ++j)
        if (states_[j].status == JobStatus::kQueued) queue_view_.insert(j);
    }
    return queue_view_;
  }

  const RunningByEnd& running_by_walltime_end() const override {
    if (!running_by_end_on_) {  // built on first use, kept from then on
      running_by_end_on_ = true;
      for (JobIndex j : running_) running_by_end_.emplace(walltime_end_ms(j), j);
    }
    return running_by_end_;
  }

  TimeMs work_done_ms(JobIndex job) const override {
    const JobState& s = states_[job];
    const TimeMs before_ms = trace_.jobs[job].duration_ms - s.remaining_work_ms;
    if (s.status != JobStatus::kRunning) return before_ms;
    return before_ms + attempt_progress_ms(s, now_ - s.last_start_ms);
  }

  TimeMs work_saved_if_preempted_ms(JobIndex job) const override {
    require_running(job, "work_saved_if_preempted_ms");
    return saved_at_preemption_ms(states_[job], work_done_ms(job));
  }

  std::int64_t preemption_cost_gpu_ms(JobIndex job) const override {
    require_running(job, "preemption_cost_gpu_ms");
    const JobState& s = states_[job];
    const TimeMs done_ms = work_done_ms(job);
    return (done_ms - saved_at_preemption_ms(s, done_ms) + s.restart_overhead_ms) *
           trace_.jobs[job].gpus;
  }

  TimeMs earliest_useful_preemption_ms(JobIndex job) const override {
    require_running(job, "earliest_useful_preemption_ms");
    const JobState& s = states_[job];
    const TimeMs start_work_ms = trace_.jobs[job].duration_ms - s.remaining_work_ms;
    TimeMs target_ms = start_work_ms + std::max<TimeMs>(1, s.restart_overhead_ms);
    const TimeMs interval_ms = s.checkpoint_interval_ms;
    if (interval_ms > 0) target_ms = (target_ms + interval_ms - 1) / interval_ms * interval_ms;
    const TimeMs progress_start_ms = saturating_add(s.last_start_ms, s.overhead_ms);
    const TimeMs needed_ms = target_ms - start_work_ms;
    // Past the attempt's end when it never saves that much (the job ends first).
    return saturating_add(progress_start_ms, needed_ms < s.remaining_work_ms
                                                 ? held_ms_for_work(s, needed_ms)
                                                 : work_time_ms(needed_ms, s.slowdown));
  }

  // --- Decisions ---
  void start(JobIndex job, Placement placement) override {
    require_in_schedule("start");
    const JobSpec& spec = job_spec(job, "start");
    JobState& state = states_[job];
    if (state.status != JobStatus::kQueued)
      policy_error("start", job,
                   fmt::format("job is {}, not queued", batsim_final_state(state.status)));
    if (placement_gpu_count(placement) != spec.gpus)
      policy_error("start", job,
                   fmt::format("placement has {} GPUs, job needs {}",
                               placement_gpu_count(placement), spec.gpus));
    if (sharing_) {
      if (std::string why = sharing_->check(job, placement, cluster_); !why.empty())
        policy_error("start", job, why);
    } else if (!cluster_.can_allocate(placement)) {
      policy_error(
          "start", job,
          "placement names GPUs that are not free, do not exist, or is not sorted by node");
    }
    for (const auto& a : placement) {
      if (!Cluster::type_matches(job_type_[job], cluster_.node(a.node).type))
        policy_error("start", job, fmt::format("node {} is not of the job's gpu_type", a.node));
    }
    // With sharing, the cluster's free masks change only for GPUs that were idle.
    const Placement became_busy = sharing_ ? sharing_->allocate(job, placement) : Placement{};
    if (!sharing_)
      cluster_.allocate(placement);
    else if (!became_busy.empty())
      cluster_.allocate(became_busy);
    ++state.attempt;
    state.placement = std::move(placement);
    tenant_usage_.add(tenants_.of_job(job), cluster_, state.placement, now_);
    state.last_start_ms = now_;
    if (state.first_start_ms == kUnsetMs) state.first_start_ms = now_;
    state.overhead_ms = state.restarts > 0 ? state.restart_overhead_ms : 0;
    // A MIG layout change for this start: the job holds its slice but waits for it, before its
    // walltime clock starts.
    state.setup_ms =
        sharing_ && sharing_->last_allocate_reconfigured() ? options_.mig_reconfig_ms : 0;
    state.overhead_ms = saturating_add(state.overhead_ms, state.setup_ms);
    state.status = JobStatus::kRunning;
    TimeMs work_ms = state.remaining_work_ms;
    if (models_on_) {
      state.slowdown = models_start(job);
      work_ms = work_time_ms(state.remaining_work_ms, state.slowdown);
    }
    TimeMs end_ms = now_ + state.overhead_ms + work_ms;
    if (options_.walltime_kill)
      end_ms = std::min(end_ms, saturating_add(now_ + state.setup_ms, state.walltime_ms));
    events_.push(end_ms, EventKind::kJobEnd, job, state.attempt);
    running_pos_[job] = static_cast<std::uint32_t>(running_.size());
    running_.push_back(job);
    if (queue_view_on_) queue_view_.erase(job);
    if (running_by_end_on_) running_by_end_.emplace(walltime_end_ms(job), job);
    if (!sharing_ || !became_busy.empty())
      what_if_.on_real_start(sharing_ ? became_busy : state.placement);
    --queued_jobs_;
    queued_gpus_ -= spec.gpus;
    notify(job, JobTransition::kStarted);
  }

  std::optional<Placement> find_placement(JobIndex job) const override {
    const JobSpec& spec = trace_.jobs.at(job);
    if (job_type_[job] == kUnknownGpuType) return std::nullopt;
    if (sharing_ && spec.uses_sharing()) return sharing_->choose(job, cluster_);
    return placement_->place(cluster_, job_type_[job], spec.gpus);
  }

  void preempt(JobIndex job) override {
    require_in_schedule("preempt");
    const JobSpec& spec = job_spec(job, "preempt");
    JobState& state = states_[job];
    if (state.status != JobStatus::kRunning) policy_error("preempt", job, "job is not running");
    if (!spec.preemptible) policy_error("preempt", job, "job is not preemptible");
    const TimeMs done_ms = end_attempt(job);
    const TimeMs saved_ms = saved_at_preemption_ms(state, done_ms);
    count_interruption(job, saved_ms, done_ms, "preempted");
    state.lost_gpu_ms += (done_ms - saved_ms) * spec.gpus;
    state.checkpointed_work_ms = saved_ms;
    state.remaining_work_ms = spec.duration_ms - saved_ms;
    ++state.preemptions;
    ++state.restarts;
    requeue(job);
    pending_requeue_.push_back(job);
    notify(job, JobTransition::kPreempted);
  }

  void wake_at(TimeMs time_ms) override {
    require_in_schedule("wake_at");
    if (time_ms <= now_)
      throw PolicyError(
          fmt::format("policy asked to wake at {} ms, not after now ({} ms)", time_ms, now_));
    if (wakeups_.insert(time_ms).second) events_.push(time_ms, EventKind::kWakeup, 0);
  }

  void wake_node(NodeIndex node) override {
    require_in_schedule("wake_node");
    if (node >= cluster_.node_count())
      throw PolicyError(fmt::format("policy asked to wake node {}, which does not exist ({} nodes)",
                                    node, cluster_.node_count()));
    if (models_on_)
      for (auto& model : models_) model->on_wake_request(node);
  }

  // --- the run ---
  EngineStats run() {
    const std::size_t n = trace_.jobs.size();
    if (n == 0) return stats_;
    stats_.first_submit_ms = trace_.jobs[arrival_order_[0]].submit_ms;
    now_ = stats_.first_submit_ms;
    stats_.last_finish_ms = now_;
    push_next_arrivals();
    if (models_on_) start_cluster_models();
    for (auto* observer : observers_) observer->on_begin(*this);
    policy_.on_begin(*this, RunSizes{n, cluster_.node_count(), cluster_.total_gpus(),
                                     cluster_.gpu_types().size()});
    std::vector<Event> batch;
    while (!events_.empty() && final_count_ < n) {
      batch.clear();
      const TimeMs t = events_.pop_batch(batch);
      SCHEDLAB_ASSERT(t >= now_, "time never goes backwards");
      if (t > now_)
        for (auto* observer : observers_) observer->on_advance(*this, now_, t);
      now_ = t;
      bool applied_any = false;
      for (const Event& event : batch) {
        switch (event.kind) {
          case EventKind::kJobEnd:
            if (states_[event.subject].status != JobStatus::kRunning ||
                states_[event.subject].attempt != event.attempt)
              continue;  // stale: the attempt was interrupted
            finish(event.subject);
            break;
          case EventKind::kJobArrival: submit(event.subject); break;
          case EventKind::kWakeup: wakeups_.erase(event.time_ms); break;
          case EventKind::kNodeDown:
          case EventKind::kNodeUp:
            if (!apply_node_event(event)) continue;  // stale, or changes nothing
            break;
        }
        ++stats_.events;
        ++events_since_progress_;
        applied_any = true;
      }
      if (events_since_progress_ > kMaxEventsWithoutProgress) throw_no_progress();
      if (failures_since_progress_ > failure_livelock_window_) throw_failure_livelock();
      if (pending_arrivals_ == 0) push_next_arrivals();
      if (!applied_any) continue;
      ++stats_.instants;
      if (queued_jobs_ > 0) call_policy();
      if (models_on_) models_after_policy();
      if (queued_jobs_ > 0 && running_.empty() && pending_arrivals_ == 0 && nothing_left_on_nodes())
        throw_stuck();
    }
    if (final_count_ < n) throw_stuck();
    for (auto* observer : observers_) observer->on_end(*this);
    return stats_;
  }

  void add_observer(Observer& observer) { observers_.push_back(&observer); }
  const std::vector<JobState>& states() const { return states_; }

 private:
  static constexpr std::uint32_t kNotRunning = 0xFFFFFFFFu;

  TimeMs effective_walltime(const JobSpec& spec) const {
    if (spec.walltime_ms != kUnsetMs) return spec.walltime_ms;
    switch (options_.estimate) {
      case EstimateMode::kExact: return spec.duration_ms;
      case EstimateMode::kFactor:
        return std::max<TimeMs>(
            1, static_cast<TimeMs>(
                   std::llround(static_cast<double>(spec.duration_ms) * options_.estimate_factor)));
      case EstimateMode::kColumn:
        throw TraceError(
            trace_.path, spec.line,
            fmt::format("column 'walltime': job '{}' has none, and --estimate column requires one",
                        spec.id));
    }
    return spec.duration_ms;
  }

  // Work done by an attempt after `elapsed_ms` held: nothing during its restart overhead, then
  // progress at its slowdown, never more than the work it had left.
  static TimeMs attempt_progress_ms(const JobState& s, TimeMs elapsed_ms) {
    const TimeMs overhead_spent_ms = std::min(elapsed_ms, s.overhead_ms);
    return s.slowdown == 1.0 ? std::min(elapsed_ms - overhead_spent_ms, s.remaining_work_ms)
                             : progress_at_slowdown(elapsed_ms - overhead_spent_ms,
                                                    s.remaining_work_ms, s.slowdown);
  }

  // Progress time after which an attempt has done `work_ms` (< its remaining work).
  static TimeMs held_ms_for_work(const JobState& s, TimeMs work_ms) {
    if (s.slowdown == 1.0) return work_ms;
    TimeMs held_ms = work_time_ms(work_ms, s.slowdown);
    while (progress_at_slowdown(held_ms, s.remaining_work_ms, s.slowdown) < work_ms) ++held_ms;
    return held_ms;
  }

  // Work kept when an attempt that has done `done_ms` in all is preempted: with a checkpoint
  // interval, checkpoints exist at every whole multiple of it; without, one is taken now.
  static TimeMs saved_at_preemption_ms(const JobState& s, TimeMs done_ms) {
    const TimeMs interval_ms = s.checkpoint_interval_ms;
    return interval_ms > 0 ? std::max(s.checkpointed_work_ms, done_ms / interval_ms * interval_ms)
                           : done_ms;
  }

  TimeMs walltime_end_ms(JobIndex job) const {
    return saturating_add(states_[job].last_start_ms + states_[job].setup_ms,
                          states_[job].walltime_ms);
  }

  void require_running(JobIndex job, const char* what) const {
    if (job >= states_.size() || states_[job].status != JobStatus::kRunning)
      throw PolicyError(
          fmt::format("policy asked for {} of job index {}, which is not running", what, job));
  }

  // An interruption that keeps no more work than the job had saved before is fruitless; a job
  // interrupted kMaxFruitlessInterruptions times in a row that way can never finish, and the run
  // would grow without end: it stops with exit 3 naming the job.
  void count_interruption(JobIndex job, TimeMs saved_ms, TimeMs done_ms, const char* how) {
    const JobState& state = states_[job];
    const JobSpec& spec = trace_.jobs[job];
    if (fruitless_interruptions_.empty()) fruitless_interruptions_.assign(states_.size(), 0);
    if (saved_ms > state.checkpointed_work_ms || done_ms == spec.duration_ms) {
      fruitless_interruptions_[job] = 0;
      note_progress();
      return;
    }
    if (++fruitless_interruptions_[job] < kMaxFruitlessInterruptions) return;
    throw StuckError(fmt::format(
        "run cannot finish at t={} s: job '{}' was interrupted {} times in a row without reaching "
        "a new checkpoint ({} s of its {} s saved; last {}); the policy preempts it before it "
        "saves work, or failures come faster than its checkpoints",
        static_cast<double>(now_) / kMsPerSecond, spec.id, kMaxFruitlessInterruptions,
        static_cast<double>(saved_ms) / kMsPerSecond,
        static_cast<double>(spec.duration_ms) / kMsPerSecond, how));
  }

  // Something that brings the run closer to its end happened: an arrival, a job ending, or a
  // job's saved work advancing.
  void note_progress() override {
    events_since_progress_ = 0;
    failures_since_progress_ = 0;
  }

  const JobSpec& job_spec(JobIndex job, const char* what) const {
    if (job >= trace_.jobs.size())
      throw PolicyError(
          fmt::format("policy asked to {} job index {}, which does not exist", what, job));
    return trace_.jobs[job];
  }

  [[noreturn]] void policy_error(const char* what, JobIndex job, const std::string& reason) const {
    throw PolicyError(fmt::format("policy cannot {} job '{}' at {} ms: {}", what,
                                  trace_.jobs[job].id, now_, reason));
  }

  void require_in_schedule(const char* what) const {
    if (!in_schedule_)
      throw PolicyError(fmt::format("Decisions::{} called outside schedule()", what));
  }

  // Pushes every arrival that shares the next submit time, so one instant's arrivals pop together.
  void push_next_arrivals() {
    const std::size_t n = arrival_order_.size();
    if (next_arrival_ >= n) return;
    const TimeMs t = trace_.jobs[arrival_order_[next_arrival_]].submit_ms;
    while (next_arrival_ < n && trace_.jobs[arrival_order_[next_arrival_]].submit_ms == t) {
      events_.push(t, EventKind::kJobArrival, arrival_order_[next_arrival_]);
      ++next_arrival_;
      ++pending_arrivals_;
    }
  }

  void submit(JobIndex job) {
    --pending_arrivals_;
    note_progress();
    const JobSpec& spec = trace_.jobs[job];
    JobState& state = states_[job];
    const GpuTypeIndex type = job_type_[job];
    RejectReason reason = RejectReason::kNone;
    if (type == kUnknownGpuType || cluster_.total_gpus_of(type) == 0) {
      reason = RejectReason::kGpuTypeNotInCluster;
    } else if (spec.gpus > cluster_.total_gpus_of(type)) {
      reason = type == kAnyGpuType ? RejectReason::kMoreGpusThanCluster
                                   : RejectReason::kMoreGpusThanType;
    } else if (sharing_ && spec.uses_sharing() && !sharing_->fits_some_node(job)) {
      reason = RejectReason::kFitsNoNode;
    }
    if (reason != RejectReason::kNone) {
      state.status = JobStatus::kRejected;
      state.reject_reason = reason;
      if (warned_reasons_.insert(reason).second)
        spdlog::warn(
            "{}:{}: job '{}' rejected: {} (needs {} GPUs); further such jobs are counted in "
            "summary.json jobs.rejected_reasons",
            trace_.path, spec.line, spec.id, reject_reason_text(reason), spec.gpus);
      ++final_count_;
      notify(job, JobTransition::kRejected);
      return;
    }
    state.status = JobStatus::kQueued;
    state.queued_since_ms = now_;
    if (queue_view_on_) queue_view_.insert(job);
    ++queued_jobs_;
    queued_gpus_ += spec.gpus;
    if (models_on_) models_queued(job);
    changes_.arrived.push_back(job);
    notify(job, JobTransition::kSubmitted);
    policy_.on_submit(*this, job);
  }

  // Ends the current attempt at now: releases GPUs, accounts run time and overhead.
  // Returns the job's total work done (reference ms) as of now.
  [[gnu::always_inline]] TimeMs end_attempt(JobIndex job) {
    const JobSpec& spec = trace_.jobs[job];
    JobState& state = states_[job];
    const TimeMs elapsed_ms = now_ - state.last_start_ms;
    const TimeMs overhead_spent_ms = std::min(elapsed_ms, state.overhead_ms);
    const TimeMs progress_ms = attempt_progress_ms(state, elapsed_ms);
    state.run_ms += elapsed_ms;
    state.lost_gpu_ms += overhead_spent_ms * spec.gpus;
    const Placement became_idle = sharing_ ? sharing_->release(job, state.placement) : Placement{};
    if (!sharing_ || !became_idle.empty())
      cluster_.release(sharing_ ? became_idle : state.placement);
    tenant_usage_.remove(tenants_.of_job(job), cluster_, state.placement, now_);
    if (!sharing_ || !became_idle.empty())
      what_if_.on_real_stop(sharing_ ? became_idle : state.placement);
    if (running_by_end_on_) running_by_end_.erase({walltime_end_ms(job), job});
    if (models_on_) models_stop(job);
    const std::uint32_t pos = running_pos_[job];
    SCHEDLAB_ASSERT(pos != kNotRunning && running_[pos] == job, "running index is consistent");
    running_[pos] = running_.back();
    running_pos_[running_[pos]] = pos;
    running_.pop_back();
    running_pos_[job] = kNotRunning;
    return spec.duration_ms - state.remaining_work_ms + progress_ms;
  }

  void requeue(JobIndex job) {
    JobState& state = states_[job];
    if (queue_view_on_) queue_view_.insert(job);
    state.status = JobStatus::kQueued;
    state.queued_since_ms = now_;
    ++queued_jobs_;
    queued_gpus_ += trace_.jobs[job].gpus;
    if (models_on_) models_queued(job);
  }

  void finish(JobIndex job) {
    const JobSpec& spec = trace_.jobs[job];
    JobState& state = states_[job];
    const bool early =
        now_ < saturating_add(state.last_start_ms + state.setup_ms, state.walltime_ms);
    const TimeMs done_ms = end_attempt(job);
    const bool completed = done_ms >= spec.duration_ms;
    note_progress();
    changes_.ended.push_back(job);
    changes_.ended_early = changes_.ended_early || early;
    state.remaining_work_ms = spec.duration_ms - done_ms;
    state.status = completed ? JobStatus::kCompleted : JobStatus::kWalltimeReached;
    state.finish_ms = now_;
    stats_.last_finish_ms = std::max(stats_.last_finish_ms, now_);
    ++final_count_;
    notify(job, completed ? JobTransition::kCompleted : JobTransition::kWalltimeReached);
    policy_.on_finish(*this, job);
  }

  // A running job came back to the queue: its GPUs are free before its walltime-based end.
  void note_requeue_change(JobIndex job) {
    changes_.requeued.push_back(job);
    changes_.ended_early = true;
  }

  void call_policy() {
    in_schedule_ = true;
    ++stats_.policy_calls;
    policy_.schedule(*this, *this);
    in_schedule_ = false;
    what_if_.end_call(cluster_);
    changes_.clear();
    changes_.nodes_changed = nodes_changed_in_call_;  // the policy woke nodes: seen next call
    nodes_changed_in_call_ = false;
    for (JobIndex job : pending_requeue_) {
      note_requeue_change(job);
      policy_.on_requeue(*this, job);
    }
    pending_requeue_.clear();
  }

  // ===== Cluster models (src/models/, docs/cluster.md). None of this runs with every model
  // off. =====

  void init_cluster_models() {
    const RunOptions& o = options_;
    if (o.failure_rate_per_1000_node_days > 0 && o.failure_trace)
      throw ConfigError("--failures and --failure-trace cannot be combined");
    if (o.failure_trace) o.failure_trace->check_nodes(cluster_.node_count());
    if (o.repair_ms <= 0) throw ConfigError("--failures repair=H: expected hours > 0");
    if (o.power_off_idle_ms < 0) throw ConfigError("--power-off-idle: expected seconds >= 0");
    if (o.boot_time_ms <= 0) throw ConfigError("--boot-time: expected seconds > 0");
    const double pue = effective_pue(o, cluster_);
    SCHEDLAB_ASSERT(pue >= 1.0 && pue <= 10.0, "the PUE is checked where it is given");
    // Hooks run in this order: a failure's events are pushed before the power model's at the
    // run's start, and the power model's wake-ups come before the failure chain's resumption.
    ModelHost& host = *this;
    if (o.speed_model != SpeedModel::kOff)
      models_.push_back(std::make_unique<PlacementSpeed>(host, trace_, cluster_, o.speed_model));
    if (o.failures_on())
      models_.push_back(std::make_unique<NodeFailures>(host, trace_, cluster_, options_));
    if (o.power_off_idle_ms > 0)
      models_.push_back(std::make_unique<PowerStates>(host, cluster_, make_default_power_policy()));
    models_on_ = !models_.empty();
  }

  // --- ModelHost ---
  const RunView& view() const override { return *this; }
  bool arrivals_left() const override {
    return pending_arrivals_ > 0 || next_arrival_ < arrival_order_.size();
  }
  void push_node_event(TimeMs time_ms, EventKind kind, std::uint32_t subject,
                       std::uint32_t stamp) override {
    SCHEDLAB_ASSERT(kind == EventKind::kNodeDown || kind == EventKind::kNodeUp,
                    "models push node events");
    events_.push(time_ms, kind, subject, stamp);
  }

  void set_node_state(NodeIndex node, NodeState state) override {
    const NodeState from = cluster_.node_state(node);
    if (state == NodeState::kDown) ++failures_since_progress_;
    cluster_.set_node_state(node, state);
    changes_.nodes_changed = true;
    if (in_schedule_) nodes_changed_in_call_ = true;
    for (auto& model : models_) model->on_node_state(node, from);
    for (auto* observer : observers_) observer->on_node(*this, node, from);
  }

  // The job's attempt dies with a node: it keeps the work up to its last checkpoint (periodic
  // ones only; with interval 0 that is the checkpoint of its last preemption, or none) and is
  // queued again.
  [[gnu::noinline]] FailedAttempt fail_job(JobIndex job) override {
    const JobSpec& spec = trace_.jobs[job];
    JobState& state = states_[job];
    SCHEDLAB_ASSERT(state.status == JobStatus::kRunning,
                    "a failed node's GPUs belong to running jobs");
    const TimeMs done_ms = end_attempt(job);
    const TimeMs interval_ms = state.checkpoint_interval_ms;
    const TimeMs periodic_ms = interval_ms > 0 ? done_ms / interval_ms * interval_ms : 0;
    const FailedAttempt attempt{done_ms, state.checkpointed_work_ms,
                                std::max(state.checkpointed_work_ms, periodic_ms)};
    state.lost_gpu_ms += (done_ms - attempt.saved_ms) * spec.gpus;
    state.checkpointed_work_ms = attempt.saved_ms;
    state.remaining_work_ms = spec.duration_ms - attempt.saved_ms;
    ++state.restarts;
    if (state.failures < 0xFFFF) ++state.failures;
    requeue(job);
    note_requeue_change(job);
    notify(job, JobTransition::kFailed);
    policy_.on_requeue(*this, job);
    return attempt;
  }

  // --- calls into the models ---
  [[gnu::noinline]] double models_start(JobIndex job) {
    double slowdown = 1.0;
    for (auto& model : models_) slowdown *= model->on_job_start(job, states_[job].placement);
    return slowdown;
  }
  [[gnu::noinline]] void models_stop(JobIndex job) {
    for (auto& model : models_) model->on_job_stop(job, states_[job].placement);
  }
  [[gnu::noinline]] void models_queued(JobIndex job) {
    for (auto& model : models_) model->on_job_queued(job);
  }
  void start_cluster_models() {
    for (auto& model : models_) model->on_run_start();
  }
  // Applies a node event; false if it was stale or changed nothing.
  bool apply_node_event(const Event& event) {
    for (auto& model : models_) {
      const NodeEventOutcome outcome = model->on_node_event(event);
      if (outcome != NodeEventOutcome::kNotMine) return outcome == NodeEventOutcome::kApplied;
    }
    SCHEDLAB_ASSERT(false, "every node event belongs to a model");
    return false;
  }
  void models_after_policy() {
    for (auto& model : models_) model->after_policy();
    for (auto& model : models_) model->on_instant_end();
  }

  // Part of the stuck test: down nodes will be repaired and booting nodes will come up, so both
  // can still start jobs. And when nodes changed state since the last time the run looked stuck,
  // a policy that asked to be woken (it may have planned around a node that was away) gets
  // until its latest pending wake-up to start something. Terminates: node states change only
  // finitely often while nothing runs (failures pause, repairs and boots end, and no node powers
  // off while a job could use it).
  bool nothing_left_on_nodes() {
    if (cluster_.nodes_in_state(NodeState::kDown) > 0 ||
        cluster_.nodes_in_state(NodeState::kBooting) > 0)
      return false;
    if (!models_on_ || wakeups_.empty()) return true;
    if (cluster_.node_state_version() != stuck_grace_version_) {
      stuck_grace_version_ = cluster_.node_state_version();
      stuck_grace_until_ms_ = *wakeups_.rbegin();
    }
    return now_ >= stuck_grace_until_ms_;
  }

  // The ids of the queued (and with `running_too`, running) jobs, the first ten in index order
  // and then their count, for the messages of a run that cannot finish; and that count.
  std::pair<std::string, std::size_t> unfinished_job_names(bool running_too) const {
    std::string names;
    std::size_t count = 0;
    for (JobIndex j = 0; j < states_.size(); ++j) {
      const JobStatus status = states_[j].status;
      if (status != JobStatus::kQueued && !(running_too && status == JobStatus::kRunning)) continue;
      if (++count <= 10) names += (names.empty() ? "" : ", ") + trace_.jobs[j].id;
    }
    if (count > 10) names += fmt::format(", ... ({} in all)", count);
    return {std::move(names), count};
  }

  // The run applied kMaxEventsWithoutProgress events without an arrival, a job ending or any
  // job's saved work advancing: it would go on (and grow) without end.
  [[noreturn]] void throw_no_progress() const {
    const std::string names = unfinished_job_names(/*running_too=*/true).first;
    throw StuckError(fmt::format(
        "run cannot finish at t={} s: {} events applied without any job arriving, ending or "
        "saving work; jobs queued or running: {}",
        static_cast<double>(now_) / kMsPerSecond, kMaxEventsWithoutProgress, names));
  }

  // Failure livelock (docs/cluster.md, "Ending"): the cluster applied more node failures than
  // failure_livelock_window_ (100 per node, at least 10,000) without any job arriving, ending or
  // saving work. Every node failed 100 times on average while no attempt reached its end or a
  // checkpoint: failures come faster than the jobs can finish, and the run would go on (and
  // grow) without end.
  [[noreturn]] void throw_failure_livelock() const {
    const std::string names = unfinished_job_names(/*running_too=*/true).first;
    throw StuckError(fmt::format(
        "run cannot finish at t={} s: failure livelock, {} node failures ({} per node of {}) "
        "without any job arriving, ending or saving work; failures come faster than jobs can "
        "finish: lower the failure rate, shorten the repair time or set a checkpoint interval; "
        "jobs queued or running: {}",
        static_cast<double>(now_) / kMsPerSecond, failures_since_progress_,
        kLivelockFailuresPerNode, cluster_.node_count(), names));
  }

  [[noreturn]] void throw_stuck() const {
    const auto [names, count] = unfinished_job_names(/*running_too=*/false);
    throw StuckError(
        fmt::format("run cannot finish at t={} s: {} job(s) queued with nothing left to "
                    "happen (policy never starts them): {}",
                    static_cast<double>(now_) / kMsPerSecond, count, names));
  }

  void notify(JobIndex job, JobTransition what) {
    for (auto* observer : observers_) observer->on_job(*this, job, what);
  }

  const Trace& trace_;
  Cluster cluster_;
  Policy& policy_;
  RunOptions options_;
  std::unique_ptr<PlacementStrategy> placement_;
  std::vector<JobState> states_;
  std::vector<GpuTypeIndex> job_type_;
  std::vector<JobIndex> arrival_order_;
  std::size_t next_arrival_ = 0;
  std::size_t pending_arrivals_ = 0;
  EventQueue events_;
  std::set<TimeMs> wakeups_;
  std::set<RejectReason> warned_reasons_;
  std::vector<JobIndex> running_;
  std::vector<std::uint32_t> running_pos_;
  std::vector<JobIndex> pending_requeue_;
  mutable WhatIfCluster what_if_;
  // --gpu-sharing: GPU milli, CPU and memory per node, and the shared placement; null when off.
  std::unique_ptr<GpuSharingState> sharing_;
  TenantTable tenants_;
  TenantUsage tenant_usage_;
  Changes changes_;
  mutable QueueView queue_view_{trace_.jobs, states_};
  mutable bool queue_view_on_ = false;
  mutable RunningByEnd running_by_end_;
  mutable bool running_by_end_on_ = false;
  bool nodes_changed_in_call_ = false;
  static constexpr std::uint32_t kMaxFruitlessInterruptions = 10'000;
  std::vector<std::uint32_t> fruitless_interruptions_;  // per job; sized at the first preemption
  static constexpr std::uint64_t kMaxEventsWithoutProgress = 50'000'000;
  std::uint64_t events_since_progress_ = 0;
  static constexpr std::uint64_t kLivelockFailuresPerNode = 100;
  static constexpr std::uint64_t kMinLivelockFailures = 10'000;
  std::uint64_t failure_livelock_window_ =
      std::max(kMinLivelockFailures, kLivelockFailuresPerNode* cluster_.node_count());
  std::uint64_t failures_since_progress_ = 0;
  std::vector<Observer*> observers_;
  std::size_t queued_jobs_ = 0;
  std::int64_t queued_gpus_ = 0;
  std::size_t final_count_ = 0;
  TimeMs now_ = 0;
  bool in_schedule_ = false;
  EngineStats stats_;

  // Cluster models, in hook order; empty with every model off.
  std::vector<std::unique_ptr<ClusterModel>> models_;
  bool models_on_ = false;
  std::uint64_t stuck_grace_version_ = 0;  // node-state version of the last grace
  TimeMs stuck_grace_until_ms_ = 0;
};

Engine::Engine(const Trace& trace, const Cluster& cluster, Policy& policy,
               const RunOptions& options)
    : impl_(std::make_unique<Impl>(trace, cluster, policy, options)) {}
Engine::~Engine() = default;
void Engine::add_observer(Observer& observer) {
  impl_->add_observer(observer);
}
EngineStats Engine::run() {
  return impl_->run();
}
const std::vector<JobState>& Engine::states() const {
  return impl_->states();
}
const Cluster& Engine::cluster() const {
  return impl_->cluster();
}
const TenantTable& Engine::tenants() const {
  return impl_->tenants();
}

}  // namespace schedlab
