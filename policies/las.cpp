// las — Tiresias' discretized two-dimensional least-attained-service scheduling (2D-LAS).
//
// Algorithm: a job's attained service is its GPU count times the time it has held GPUs (over
// all attempts, restart overhead included), counted from its last promotion. The thresholds
// T1 < T2 < ... (GPU-seconds) split jobs into queues: queue k holds service in [T_k, T_k+1)
// (queue 0 below T1). Queued jobs are served by queue (lower first), FIFO within a queue
// (submit time, then trace order); a job that does not fit is skipped, not blocking. A waiting
// job that does not fit may preempt running preemptible jobs in strictly higher-numbered
// queues, choosing the victims with the least work lost (see choose_victims in policy_kit.hpp);
// jobs in the same queue never preempt each other. Progress guard: a job is never preempted
// before its current attempt has kept at least as much work as the restart overhead the
// preemption costs (up to a checkpoint: SchedContext::earliest_useful_preemption_ms, which
// counts progress at the job's speed-model rate), so short queue
// quanta cannot livelock jobs that would lose each run. A running job moves down a queue the
// moment
// its service crosses a threshold (the policy wakes itself then). Starvation guard: a job that
// has run before, sits in a queue above 0 and has waited at least `starvation` times the
// length of its last run (the attempt that ended when it was last queued) is promoted to queue
// 0 and its service counter restarts from zero (starvation=0 turns the guard off).
// A waiting job that found neither room nor victims is examined again only once GPUs were
// released, a job changed queue, a job started in a higher-numbered queue than it, a running
// job became eligible for preemption, or a node changed state; until then only newly queued
// jobs are tried.
// Parameters: thresholds (GPU-seconds, ascending, separated by ',' or ';'; 3600), starvation
// (10).
// Data structures: waiting jobs in one std::set per GPU count, keyed (queue, submit, index), and
// a rescan merges them in that order, leaving out the counts a failure of a job of any type with
// as many GPUs or fewer rules out (FailedSizes); running jobs in a std::set keyed (queue, index)
// so victims are a suffix; pending demotions and promotions in
// std::sets keyed by time, so an instant touches only the jobs that change queue.
// Citation: J. Gu et al., "Tiresias: A GPU cluster manager for distributed deep learning",
// NSDI 2019, sec. 3.2 and 4 (discretized 2D-LAS, STARVELIMIT promotion).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "schedlab/error.hpp"
#include "schedlab/policy_kit.hpp"

namespace schedlab {
namespace {

constexpr const char* kName = "las";

class LasPolicy final : public Policy {
 public:
  LasPolicy(std::vector<std::int64_t> thresholds_gpu_ms, double starvation)
      : thresholds_gpu_ms_(std::move(thresholds_gpu_ms)), starvation_(starvation) {}

  void on_begin(const SchedContext& /*ctx*/, const RunSizes& sizes) override {
    queue_of_.assign(sizes.jobs, 0);
    waiting_by_gpus_.clear();
    base_gpu_ms_.assign(sizes.jobs, 0);
    last_run_ms_.assign(sizes.jobs, 0);
    demote_ms_.assign(sizes.jobs, kNever);
    promote_ms_.assign(sizes.jobs, kNever);
  }

  void on_submit(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }

  void on_finish(const SchedContext& /*ctx*/, JobIndex job) override { stopped(job); }

  void on_requeue(const SchedContext& ctx, JobIndex job) override {
    stopped(job);
    last_run_ms_[job] = ctx.now() - ctx.job(job).last_start_ms();
    enqueue(ctx, job);
  }

  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    if (ctx.now() >= recheck_ms_) {  // a victim some job waited for became eligible
      rescan_ = true;
      recheck_ms_ = kNever;
    }
    if (ctx.changes().nodes_changed) rescan_ = true;
    apply_demotions(ctx);
    apply_promotions(ctx);
    std::uint32_t lowest_failed_queue = kNoQueue;
    TimeMs wake_ms = kNever;
    // Later jobs sit in the same or higher-numbered queues, so they have no more victims and
    // no more free GPUs than an earlier one: once a job of N GPUs of a type found no room,
    // no later job of N or more GPUs of that type (or of any type, for an untyped one) can.
    FailedSizes failed(ctx.cluster());
    bool failed_cleared = false;
    // Tries one waiting job; false when no later job can start either.
    auto visit = [&](const Entry& entry) {
      const auto [queue, submit_ms, job] = entry;
      const bool victims_exist = !running_.empty() && std::prev(running_.end())->first > queue;
      if (!ctx.capacity_left() && !victims_exist) {
        lowest_failed_queue = std::min(lowest_failed_queue, queue);
        return false;
      }
      const GpuTypeIndex type = ctx.job(job).gpu_type();
      const int gpus = ctx.job(job).gpus();
      if (failed.rules_out(type, gpus)) {
        lowest_failed_queue = std::min(lowest_failed_queue, queue);
        return true;
      }
      if (fits(ctx, job) && decisions.try_start(job)) {
        started(ctx, job, lowest_failed_queue);
      } else if (victims_exist && preempt_for(ctx, decisions, job, queue, wake_ms)) {
        started(ctx, job, lowest_failed_queue);
        failed.clear();  // the victims may free more GPUs than the job takes
        failed_cleared = true;
      } else {
        lowest_failed_queue = std::min(lowest_failed_queue, queue);
        failed.add(type, gpus);
      }
      return true;
    };
    if (rescan_) {
      rescan_ = false;
      visit_waiting(failed, failed_cleared, visit);
    } else {  // only jobs queued since the last call can start
      std::vector<Entry> fresh;
      for (JobIndex job : ctx.changes().arrived) fresh.push_back(entry_of(ctx, job));
      for (JobIndex job : ctx.changes().requeued) fresh.push_back(entry_of(ctx, job));
      std::sort(fresh.begin(), fresh.end());
      for (const Entry& entry : fresh)
        if (is_waiting(ctx, entry) && !visit(entry)) break;
    }
    if (!demotions_.empty()) wake_ms = std::min(wake_ms, demotions_.begin()->first);
    if (!promotions_.empty()) wake_ms = std::min(wake_ms, promotions_.begin()->first);
    if (wake_ms != kNever && wake_ms > ctx.now()) decisions.wake_at(wake_ms);
  }

 private:
  static constexpr std::uint32_t kNoQueue = 0xFFFFFFFFu;
  using Entry = std::tuple<std::uint32_t, TimeMs, JobIndex>;  // (queue, submit, job)

  using Bucket = std::set<Entry>;

  static bool fits(const SchedContext& ctx, JobIndex job) { return ctx.may_start_now(job); }

  // Visits the waiting jobs in (queue, submit, index) order until `visit` returns false, but
  // skips every job whose GPU count `failed` rules out whatever its type: its visit would only
  // note the failure (the failure that rules it out came from an entry no later than it, which
  // noted its queue already). So a rescan that ends in failures of small jobs costs the jobs
  // visited times log(distinct GPU counts), not the whole queue. When a preemption clears
  // `failed` (`failed_cleared`), every count comes back from the next entry on.
  // started() erases only the visited entry; victims rejoin the queue after schedule().
  template <typename Visit>
  void visit_waiting(const FailedSizes& failed, bool& failed_cleared, Visit&& visit) const {
    struct Cursor {
      Bucket::const_iterator at;
      const Bucket* bucket;
      int gpus;
    };
    auto later = [](const Cursor& a, const Cursor& b) { return *b.at < *a.at; };
    std::vector<Cursor> heap;
    auto fill = [&](const Entry* after) {
      heap.clear();
      for (const auto& [gpus, bucket] : waiting_by_gpus_) {
        if (failed.rules_out_any_type(gpus)) continue;
        const auto it = after == nullptr ? bucket.begin() : bucket.upper_bound(*after);
        if (it != bucket.end()) heap.push_back({it, &bucket, gpus});
      }
      std::make_heap(heap.begin(), heap.end(), later);
    };
    fill(nullptr);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      Cursor& cursor = heap.back();
      if (failed.rules_out_any_type(cursor.gpus)) {
        heap.pop_back();
        continue;
      }
      const Entry entry = *cursor.at++;  // `entry` may leave its bucket in visit()
      const bool more = cursor.at != cursor.bucket->end();
      if (!visit(entry)) return;
      if (failed_cleared) {
        failed_cleared = false;
        fill(&entry);
      } else if (more) {
        std::push_heap(heap.begin(), heap.end(), later);
      } else {
        heap.pop_back();
      }
    }
  }

  bool is_waiting(const SchedContext& ctx, const Entry& entry) const {
    const auto bucket = waiting_by_gpus_.find(ctx.job(std::get<2>(entry)).gpus());
    return bucket != waiting_by_gpus_.end() && bucket->second.count(entry) > 0;
  }

  void add_waiting(const SchedContext& ctx, JobIndex job) {
    waiting_by_gpus_[ctx.job(job).gpus()].insert(entry_of(ctx, job));
  }

  void remove_waiting(const SchedContext& ctx, JobIndex job) {
    waiting_by_gpus_[ctx.job(job).gpus()].erase(entry_of(ctx, job));
  }

  // Attained service since the last promotion, in GPU-ms.
  std::int64_t service_gpu_ms(const SchedContext& ctx, JobIndex job) const {
    const JobView view = ctx.job(job);
    TimeMs held_ms = view.held_ms();
    if (view.status() == JobStatus::kRunning) held_ms += ctx.now() - view.last_start_ms();
    return held_ms * view.gpus() - base_gpu_ms_[job];
  }

  std::uint32_t queue_for(std::int64_t service_gpu_ms) const {
    return static_cast<std::uint32_t>(
        std::upper_bound(thresholds_gpu_ms_.begin(), thresholds_gpu_ms_.end(), service_gpu_ms) -
        thresholds_gpu_ms_.begin());
  }

  Entry entry_of(const SchedContext& ctx, JobIndex job) const {
    return {queue_of_[job], ctx.job(job).submit_ms(), job};
  }

  void enqueue(const SchedContext& ctx, JobIndex job) {
    queue_of_[job] = queue_for(service_gpu_ms(ctx, job));
    add_waiting(ctx, job);
    if (starvation_ > 0 && queue_of_[job] > 0 && last_run_ms_[job] > 0) {
      const auto wait_ms =
          static_cast<TimeMs>(std::ceil(starvation_ * static_cast<double>(last_run_ms_[job])));
      promote_ms_[job] = saturating_add(ctx.now(), wait_ms);
      promotions_.emplace(promote_ms_[job], job);
    }
  }

  // No-op for a job already stopped (a victim is stopped when preempted and again on requeue).
  void stopped(JobIndex job) {
    if (running_.erase({queue_of_[job], job}) == 0) return;
    demotions_.erase({demote_ms_[job], job});
    demote_ms_[job] = kNever;
    rescan_ = true;
  }

  // When the running job's service reaches the next threshold, or kNever in the last queue.
  TimeMs next_demotion_ms(const SchedContext& ctx, JobIndex job) const {
    const std::uint32_t queue = queue_of_[job];
    if (queue >= thresholds_gpu_ms_.size()) return kNever;
    const std::int64_t need_gpu_ms = thresholds_gpu_ms_[queue] - service_gpu_ms(ctx, job);
    const std::int64_t gpus = ctx.job(job).gpus();
    return ctx.now() + std::max<std::int64_t>(1, (need_gpu_ms + gpus - 1) / gpus);
  }

  void schedule_demotion(const SchedContext& ctx, JobIndex job) {
    demote_ms_[job] = next_demotion_ms(ctx, job);
    if (demote_ms_[job] != kNever) demotions_.emplace(demote_ms_[job], job);
  }

  void started(const SchedContext& ctx, JobIndex job, std::uint32_t lowest_failed_queue) {
    remove_waiting(ctx, job);
    if (promote_ms_[job] != kNever) {
      promotions_.erase({promote_ms_[job], job});
      promote_ms_[job] = kNever;
    }
    running_.emplace(queue_of_[job], job);
    schedule_demotion(ctx, job);
    // A job left waiting in a lower-numbered queue may preempt this one next time.
    if (queue_of_[job] > lowest_failed_queue) rescan_ = true;
  }

  void apply_demotions(const SchedContext& ctx) {
    while (!demotions_.empty() && demotions_.begin()->first <= ctx.now()) {
      const JobIndex job = demotions_.begin()->second;
      demotions_.erase(demotions_.begin());
      running_.erase({queue_of_[job], job});
      queue_of_[job] = queue_for(service_gpu_ms(ctx, job));
      running_.emplace(queue_of_[job], job);
      schedule_demotion(ctx, job);
      rescan_ = true;
    }
  }

  void apply_promotions(const SchedContext& ctx) {
    while (!promotions_.empty() && promotions_.begin()->first <= ctx.now()) {
      const JobIndex job = promotions_.begin()->second;
      promotions_.erase(promotions_.begin());
      promote_ms_[job] = kNever;
      remove_waiting(ctx, job);
      base_gpu_ms_[job] += service_gpu_ms(ctx, job);
      queue_of_[job] = 0;
      add_waiting(ctx, job);
      rescan_ = true;
    }
  }

  // Preempts the cheapest eligible victims in higher-numbered queues that make room for
  // `job`, then starts it. Records in `wake_ms` when a victim not yet eligible becomes so.
  bool preempt_for(const SchedContext& ctx, Decisions& decisions, JobIndex job, std::uint32_t queue,
                   TimeMs& wake_ms) {
    // Victims are planned in whole GPUs: a job asking for part of a GPU, CPU or memory waits
    // for room instead (docs/gpu-sharing.md).
    if (ctx.job(job).uses_sharing()) return false;
    std::vector<JobIndex> candidates;
    std::int64_t reachable = ctx.cluster().free_gpus_of(ctx.job(job).gpu_type());
    TimeMs not_before_ms = kNever;
    for (auto it = running_.rbegin(); it != running_.rend() && it->first > queue; ++it) {
      if (!ctx.job(it->second).preemptible()) continue;
      const TimeMs eligible_ms = ctx.earliest_useful_preemption_ms(it->second);
      if (eligible_ms > ctx.now()) {
        not_before_ms = std::min(not_before_ms, eligible_ms);
        continue;
      }
      candidates.push_back(it->second);
      reachable += ctx.job(it->second).gpus();
    }
    std::optional<std::vector<JobIndex>> victims;
    if (reachable >= ctx.job(job).gpus()) {
      std::sort(candidates.begin(), candidates.end());
      victims = choose_victims(ctx, job, candidates);
    }
    if (!victims) {
      wake_ms = std::min(wake_ms, not_before_ms);
      recheck_ms_ = std::min(recheck_ms_, not_before_ms);
      return false;
    }
    for (JobIndex victim : *victims) {
      decisions.preempt(victim);
      stopped(victim);
    }
    const bool ok = decisions.try_start(job);
    SCHEDLAB_ASSERT(ok, "a job starts once its victims are preempted");
    return true;
  }

  std::vector<std::int64_t> thresholds_gpu_ms_;
  double starvation_;
  // Waiting jobs by GPU count, each bucket in (queue, submit, index) order; buckets are never
  // erased (a visit holds positions in them).
  std::map<int, Bucket> waiting_by_gpus_;
  std::set<std::pair<std::uint32_t, JobIndex>> running_;  // (queue, job)
  std::set<std::pair<TimeMs, JobIndex>> demotions_;       // (time, running job)
  std::set<std::pair<TimeMs, JobIndex>> promotions_;      // (time, waiting job)
  std::vector<std::uint32_t> queue_of_;
  std::vector<std::int64_t> base_gpu_ms_;  // service forgiven by promotions
  std::vector<TimeMs> last_run_ms_;        // length of the attempt that ended last
  std::vector<TimeMs> demote_ms_;
  std::vector<TimeMs> promote_ms_;
  bool rescan_ = true;
  TimeMs recheck_ms_ = kNever;  // when a victim that was not yet eligible becomes eligible
};

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    schedlab::kName,
    "Tiresias discretized 2D-LAS: queues by attained GPU-time, FIFO within a queue, preemption "
    "across queues, starvation guard",
    {{"thresholds", "3600",
      "attained-service thresholds between queues, GPU-seconds, ascending, separated by , or ;",
      "GPU-s list"},
     {"starvation", "10",
      "promote a demoted job to queue 0 after waiting this many times its last run (0 = off)",
      "multiple of the last run"}},
    [](const schedlab::PolicyParams& params) -> std::unique_ptr<schedlab::Policy> {
      std::vector<std::int64_t> thresholds_gpu_ms;
      for (double seconds :
           schedlab::param_ascending_list(params, schedlab::kName, "thresholds", "3600"))
        thresholds_gpu_ms.push_back(static_cast<std::int64_t>(std::llround(seconds * 1000.0)));
      const double starvation = params.get_double("starvation", 10.0);
      if (!(starvation >= 0) || !std::isfinite(starvation))
        schedlab::param_error(schedlab::kName, "starvation", params.values().at("starvation"),
                              "a number >= 0");
      return std::make_unique<schedlab::LasPolicy>(std::move(thresholds_gpu_ms), starvation);
    },
    false,
    schedlab::PolicyCardFacts{
        .algorithm =
            "Discretized two-dimensional least attained service: a job's attained GPU-time splits "
            "jobs into queues at the thresholds; queues are served lower first, FIFO within a "
            "queue; "
            "a job that does not fit is skipped and may preempt jobs of higher-numbered queues "
            "(least "
            "work lost, never before an attempt keeps its restart overhead of work). A job that "
            "waited "
            "starvation times its last run is promoted to queue 0.",
        .citation =
            "J. Gu et al., \"Tiresias: A GPU cluster manager for distributed deep learning\", NSDI "
            "2019, sec. 3.2 and 4 (discretized 2D-LAS, STARVELIMIT promotion)",
        .inputs_stated = true,
        .preempts = true,
    }})
