#include "schedlab/engine.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "schedlab/error.hpp"
#include "schedlab/event_queue.hpp"

namespace schedlab {

class Engine::Impl final : public SchedContext, public Decisions {
 public:
  Impl(const Trace& trace, const Cluster& cluster, Policy& policy, const RunOptions& options)
      : trace_(trace), cluster_(cluster), policy_(policy), options_(options),
        placement_(make_placement(options.placement)) {
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
      if (spec.gpu_type != 0) {
        const std::string& name = trace.strings.str(spec.gpu_type);
        const auto type = cluster_.find_gpu_type(name);
        job_type_[j] = type ? *type : kUnknownType;
      }
    }
    arrival_order_.resize(n);
    for (JobIndex j = 0; j < n; ++j) arrival_order_[j] = j;
    std::stable_sort(arrival_order_.begin(), arrival_order_.end(), [&](JobIndex a, JobIndex b) {
      return trace.jobs[a].submit_ms < trace.jobs[b].submit_ms;
    });
    events_.reserve(1024);
  }

  // --- SchedContext ---
  TimeMs now() const override { return now_; }
  const Cluster& cluster() const override { return cluster_; }
  const Trace& trace() const override { return trace_; }
  const JobState& state(JobIndex job) const override { return states_[job]; }
  const RunOptions& options() const override { return options_; }
  GpuTypeIndex job_gpu_type(JobIndex job) const override { return job_type_[job]; }
  const std::vector<JobIndex>& running() const override { return running_; }
  std::size_t queued_jobs() const override { return queued_jobs_; }
  std::int64_t queued_gpus() const override { return queued_gpus_; }
  const PlacementStrategy& placement() const override { return *placement_; }

  // --- Decisions ---
  void start(JobIndex job, Placement placement) override {
    require_in_schedule("start");
    const JobSpec& spec = job_spec(job, "start");
    JobState& state = states_[job];
    if (state.status != JobStatus::kQueued)
      policy_error("start", job, fmt::format("job is {}, not queued", batsim_final_state(state.status)));
    if (placement_gpu_count(placement) != spec.gpus)
      policy_error("start", job, fmt::format("placement has {} GPUs, job needs {}", placement_gpu_count(placement), spec.gpus));
    if (!cluster_.can_allocate(placement))
      policy_error("start", job, "placement names GPUs that are not free, do not exist, or is not sorted by node");
    for (const auto& a : placement) {
      if (!Cluster::type_matches(job_type_[job], cluster_.node(a.node).type))
        policy_error("start", job, fmt::format("node {} is not of the job's gpu_type", a.node));
    }
    cluster_.allocate(placement);
    ++state.attempt;
    state.placement = std::move(placement);
    state.last_start_ms = now_;
    if (state.first_start_ms == kUnsetMs) state.first_start_ms = now_;
    state.overhead_ms = state.restarts > 0 ? restart_overhead(spec) : 0;
    state.status = JobStatus::kRunning;
    TimeMs end_ms = now_ + state.overhead_ms + state.remaining_work_ms;
    if (options_.walltime_kill) end_ms = std::min(end_ms, now_ + state.walltime_ms);
    events_.push(end_ms, EventKind::kJobEnd, job, state.attempt);
    running_pos_[job] = static_cast<std::uint32_t>(running_.size());
    running_.push_back(job);
    --queued_jobs_;
    queued_gpus_ -= spec.gpus;
    notify(job, JobTransition::kStarted);
  }

  std::optional<Placement> find_placement(JobIndex job) const override {
    const JobSpec& spec = trace_.jobs.at(job);
    if (job_type_[job] == kUnknownType) return std::nullopt;
    return placement_->place(cluster_, job_type_[job], spec.gpus);
  }

  void preempt(JobIndex job) override {
    require_in_schedule("preempt");
    const JobSpec& spec = job_spec(job, "preempt");
    JobState& state = states_[job];
    if (state.status != JobStatus::kRunning) policy_error("preempt", job, "job is not running");
    if (!spec.preemptible) policy_error("preempt", job, "job is not preemptible");
    const TimeMs done_ms = end_attempt(job);
    const TimeMs interval_ms = spec.checkpoint_interval_ms != kUnsetMs ? spec.checkpoint_interval_ms
                                                                      : options_.checkpoint_interval_ms;
    // With an interval, checkpoints exist at every whole multiple of it; without, one is taken now.
    const TimeMs saved_ms =
        interval_ms > 0 ? std::max(state.checkpointed_work_ms, done_ms / interval_ms * interval_ms) : done_ms;
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
      throw PolicyError(fmt::format("policy asked to wake at {} ms, not after now ({} ms)", time_ms, now_));
    if (wakeups_.insert(time_ms).second) events_.push(time_ms, EventKind::kWakeup, 0);
  }

  // --- the run ---
  EngineStats run() {
    const std::size_t n = trace_.jobs.size();
    if (n == 0) return stats_;
    stats_.first_submit_ms = trace_.jobs[arrival_order_[0]].submit_ms;
    now_ = stats_.first_submit_ms;
    stats_.last_finish_ms = now_;
    push_next_arrivals();
    for (auto* observer : observers_) observer->on_begin(*this);
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
          case EventKind::kJobArrival:
            submit(event.subject);
            break;
          case EventKind::kWakeup:
            wakeups_.erase(event.time_ms);
            break;
          case EventKind::kNodeDown:
          case EventKind::kNodeUp:
            SCHEDLAB_ASSERT(false, "node events are not produced by this engine");
        }
        ++stats_.events;
        applied_any = true;
      }
      if (pending_arrivals_ == 0) push_next_arrivals();
      if (!applied_any) continue;
      ++stats_.instants;
      if (queued_jobs_ > 0) call_policy();
      if (queued_jobs_ > 0 && running_.empty() && pending_arrivals_ == 0) throw_stuck();
    }
    if (final_count_ < n) throw_stuck();
    for (auto* observer : observers_) observer->on_end(*this);
    return stats_;
  }

  void add_observer(Observer& observer) { observers_.push_back(&observer); }
  const std::vector<JobState>& states() const { return states_; }

 private:
  static constexpr std::uint32_t kNotRunning = 0xFFFFFFFFu;
  static constexpr GpuTypeIndex kUnknownType = kAnyGpuType - 1;

  TimeMs effective_walltime(const JobSpec& spec) const {
    if (spec.walltime_ms != kUnsetMs) return spec.walltime_ms;
    switch (options_.estimate) {
      case EstimateMode::kExact: return spec.duration_ms;
      case EstimateMode::kFactor:
        return std::max<TimeMs>(1, static_cast<TimeMs>(std::llround(static_cast<double>(spec.duration_ms) * options_.estimate_factor)));
      case EstimateMode::kColumn:
        throw TraceError(trace_.path, spec.line,
                         fmt::format("column 'walltime': job '{}' has none, and --estimate column requires one", spec.id));
    }
    return spec.duration_ms;
  }

  TimeMs restart_overhead(const JobSpec& spec) const {
    return spec.restart_overhead_ms != kUnsetMs ? spec.restart_overhead_ms : options_.restart_overhead_ms;
  }

  const JobSpec& job_spec(JobIndex job, const char* what) const {
    if (job >= trace_.jobs.size()) throw PolicyError(fmt::format("policy asked to {} job index {}, which does not exist", what, job));
    return trace_.jobs[job];
  }

  [[noreturn]] void policy_error(const char* what, JobIndex job, const std::string& reason) const {
    throw PolicyError(fmt::format("policy cannot {} job '{}' at {} ms: {}", what, trace_.jobs[job].id, now_, reason));
  }

  void require_in_schedule(const char* what) const {
    if (!in_schedule_) throw PolicyError(fmt::format("Decisions::{} called outside schedule()", what));
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
    const JobSpec& spec = trace_.jobs[job];
    JobState& state = states_[job];
    const GpuTypeIndex type = job_type_[job];
    RejectReason reason = RejectReason::kNone;
    if (type == kUnknownType || cluster_.total_gpus_of(type) == 0) {
      reason = RejectReason::kGpuTypeNotInCluster;
    } else if (spec.gpus > cluster_.total_gpus_of(type)) {
      reason = type == kAnyGpuType ? RejectReason::kMoreGpusThanCluster : RejectReason::kMoreGpusThanType;
    }
    if (reason != RejectReason::kNone) {
      state.status = JobStatus::kRejected;
      state.reject_reason = reason;
      if (warned_reasons_.insert(reason).second)
        spdlog::warn("{}:{}: job '{}' rejected: {} (needs {} GPUs); further such jobs are counted in "
                     "summary.json jobs.rejected_reasons",
                     trace_.path, spec.line, spec.id, reject_reason_text(reason), spec.gpus);
      ++final_count_;
      notify(job, JobTransition::kRejected);
      return;
    }
    state.status = JobStatus::kQueued;
    state.queued_since_ms = now_;
    ++queued_jobs_;
    queued_gpus_ += spec.gpus;
    notify(job, JobTransition::kSubmitted);
    policy_.on_submit(*this, job);
  }

  // Ends the current attempt at now: releases GPUs, accounts run time, overhead and energy.
  // Returns the job's total work done (reference ms) as of now.
  TimeMs end_attempt(JobIndex job) {
    const JobSpec& spec = trace_.jobs[job];
    JobState& state = states_[job];
    const TimeMs elapsed_ms = now_ - state.last_start_ms;
    const TimeMs overhead_spent_ms = std::min(elapsed_ms, state.overhead_ms);
    const TimeMs progress_ms = std::min(elapsed_ms - overhead_spent_ms, state.remaining_work_ms);
    state.run_ms += elapsed_ms;
    state.lost_gpu_ms += overhead_spent_ms * spec.gpus;
    double power_w = 0.0;
    for (const auto& a : state.placement)
      power_w += a.gpu_count() * cluster_.gpu_types()[cluster_.node(a.node).type].busy_power_w;
    state.energy_j += power_w * static_cast<double>(elapsed_ms) / kMsPerSecond;
    cluster_.release(state.placement);
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
    state.status = JobStatus::kQueued;
    state.queued_since_ms = now_;
    ++queued_jobs_;
    queued_gpus_ += trace_.jobs[job].gpus;
  }

  void finish(JobIndex job) {
    const JobSpec& spec = trace_.jobs[job];
    JobState& state = states_[job];
    const TimeMs done_ms = end_attempt(job);
    const bool completed = done_ms >= spec.duration_ms;
    state.remaining_work_ms = spec.duration_ms - done_ms;
    state.status = completed ? JobStatus::kCompleted : JobStatus::kWalltimeReached;
    state.finish_ms = now_;
    stats_.last_finish_ms = std::max(stats_.last_finish_ms, now_);
    ++final_count_;
    notify(job, completed ? JobTransition::kCompleted : JobTransition::kWalltimeReached);
    policy_.on_finish(*this, job);
  }

  void call_policy() {
    in_schedule_ = true;
    ++stats_.policy_calls;
    policy_.schedule(*this, *this);
    in_schedule_ = false;
    for (JobIndex job : pending_requeue_) policy_.on_requeue(*this, job);
    pending_requeue_.clear();
  }

  [[noreturn]] void throw_stuck() const {
    std::string names;
    std::size_t count = 0;
    for (JobIndex j = 0; j < states_.size(); ++j) {
      if (states_[j].status != JobStatus::kQueued) continue;
      if (++count <= 10) names += (names.empty() ? "" : ", ") + trace_.jobs[j].id;
    }
    if (count > 10) names += fmt::format(", ... ({} in all)", count);
    throw StuckError(fmt::format("run cannot finish at t={} s: {} job(s) queued with nothing left to "
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
  std::vector<Observer*> observers_;
  std::size_t queued_jobs_ = 0;
  std::int64_t queued_gpus_ = 0;
  std::size_t final_count_ = 0;
  TimeMs now_ = 0;
  bool in_schedule_ = false;
  EngineStats stats_;
};

Engine::Engine(const Trace& trace, const Cluster& cluster, Policy& policy, const RunOptions& options)
    : impl_(std::make_unique<Impl>(trace, cluster, policy, options)) {}
Engine::~Engine() = default;
void Engine::add_observer(Observer& observer) { impl_->add_observer(observer); }
EngineStats Engine::run() { return impl_->run(); }
const std::vector<JobState>& Engine::states() const { return impl_->states(); }
const Cluster& Engine::cluster() const { return impl_->cluster(); }

}  // namespace schedlab
