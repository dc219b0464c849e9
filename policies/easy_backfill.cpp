// easy-backfill — FIFO with EASY backfilling.
//
// Algorithm: jobs start in submit-time order (ties: trace order) while they fit. The first job
// that does not fit (the head) gets a reservation: the earliest time T at which the placement
// strategy finds room for it once running jobs end at their walltime-based ends
// (last start + walltime), and the GPUs P the strategy would choose then. A later job, taken
// in queue order, starts now only if it fits and cannot delay the head:
// - it ends by T (now + walltime <= T) and goes where the strategy puts it, or
// - it is placed by the strategy among the free GPUs outside P only.
// At T the head starts where the strategy puts it; if the strategy finds no room although P is
// free, it starts on P. The reservation is recomputed when the head changes, when a running
// job ends before its walltime, when a node changes state (failure, repair, power saving), or
// when T has passed without the head starting (a job ran past its walltime with
// --no-walltime-kill). A job that could not be backfilled is examined again only once GPUs were
// released or the reservation changed; until then only newly queued jobs are tried.
// Parameters: none.
// Data structures: the framework's queue view (submit, index), split by GPU count so a
// backfill pass merges only the counts that can still fit the free GPUs; running jobs are kept
// in a std::set keyed (walltime end, index), so computing T releases only the jobs ending
// before it, in the framework's what-if cluster where the strategy is asked "what if".
// Citation: D. A. Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995, LNCS 949;
// A. W. Mu'alem and D. G. Feitelson, "Utilization, predictability, workloads, and user runtime
// estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001.
#include <algorithm>
#include <map>
#include <set>

#include "schedlab/error.hpp"
#include "schedlab/policy_kit.hpp"

namespace schedlab {
namespace {

class EasyBackfillPolicy final : public Policy, public ReservationSource {
 public:
  void on_begin(const SchedContext& ctx, const RunSizes& /*sizes*/) override {
    queue_ = &ctx.queue();
  }

  void on_submit(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }

  void on_finish(const SchedContext& ctx, JobIndex job) override { stopped(ctx, job); }

  void on_requeue(const SchedContext& ctx, JobIndex job) override {
    stopped(ctx, job);
    enqueue(ctx, job);
  }

  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    const Changes& changes = ctx.changes();
    // Capacity came back before a walltime-based end, or nodes came or went: T may be earlier.
    if (changes.ended_early || changes.nodes_changed) reservation_valid_ = false;
    start_from_head(ctx, decisions);
    if (queue_->empty()) return;
    const JobIndex head = queue_->begin()->second;
    bool full_pass = changes.released();
    if (!reservation_valid_ || reserved_job_ != head || reserved_ms_ <= ctx.now()) {
      compute_reservation(ctx, head);
      full_pass = true;
    }
    backfill(ctx, decisions, full_pass);
  }

  std::vector<std::pair<JobIndex, TimeMs>> reservations() const override {
    if (!reservation_valid_ || reserved_ms_ == kNever || queue_->empty() ||
        queue_->begin()->second != reserved_job_)
      return {};
    return {{reserved_job_, reserved_ms_}};
  }

 private:
  void enqueue(const SchedContext& ctx, JobIndex job) {
    const JobView view = ctx.job(job);
    ++gpus_queued_[view.gpus()];
    ++walltimes_queued_[view.walltime_ms()];
    by_gpus_[view.gpus()].insert({view.submit_ms(), job});
  }

  // No-op for a job that is not running.
  void stopped(const SchedContext& ctx, JobIndex job) {
    running_by_end_.erase({ctx.job(job).walltime_end_ms(), job});
  }

  // Bookkeeping after the engine started `job`.
  void started(const SchedContext& ctx, JobIndex job) {
    const JobView view = ctx.job(job);
    const auto count = gpus_queued_.find(view.gpus());
    if (--count->second == 0) gpus_queued_.erase(count);
    by_gpus_[view.gpus()].erase({view.submit_ms(), job});
    const auto walltime = walltimes_queued_.find(view.walltime_ms());
    if (--walltime->second == 0) walltimes_queued_.erase(walltime);
    running_by_end_.emplace(view.walltime_end_ms(), job);
    if (job == reserved_job_) reservation_valid_ = false;
  }

  void start_from_head(const SchedContext& ctx, Decisions& decisions) {
    while (!queue_->empty()) {
      const JobIndex job = queue_->begin()->second;
      if (ctx.cluster().free_gpus_of(ctx.job(job).gpu_type()) >= ctx.job(job).gpus() &&
          decisions.try_start(job)) {
        started(ctx, job);
        continue;
      }
      // The strategy may prefer other GPUs than the reserved ones; the promise is kept on P.
      if (reservation_valid_ && reserved_job_ == job && reserved_ms_ <= ctx.now() &&
          ctx.cluster().can_allocate(reserved_gpus_)) {
        decisions.start(job, reserved_gpus_);
        started(ctx, job);
        continue;
      }
      return;
    }
  }

  // T and P for the head: release running jobs in walltime-end order in the what-if cluster
  // until the strategy finds room.
  void compute_reservation(const SchedContext& ctx, JobIndex head) {
    reserved_job_ = head;
    reservation_valid_ = true;
    reserved_ms_ = kNever;
    reserved_gpus_.clear();
    WhatIf& what_if = ctx.what_if();
    const GpuTypeIndex type = ctx.job(head).gpu_type();
    const int gpus = ctx.job(head).gpus();
    for (auto it = running_by_end_.begin(); it != running_by_end_.end();) {
      const TimeMs end_ms = it->first;
      for (; it != running_by_end_.end() && it->first == end_ms; ++it) what_if.release(it->second);
      if (auto placement = what_if.place(type, gpus)) {
        reserved_ms_ = std::max(end_ms, ctx.now());
        reserved_gpus_ = std::move(*placement);
        break;
      }
    }
    what_if.reset();
  }

  void backfill(const SchedContext& ctx, Decisions& decisions, bool full_pass) {
    if (!can_fit_any(ctx)) return;
    std::vector<QueueEntry> fresh;
    if (!full_pass) {
      for (const QueueEntry& entry : ctx.changes().fresh_entries(ctx))
        if (entry.second != reserved_job_ && queue_->count(entry)) fresh.push_back(entry);
      if (fresh.empty()) return;
    }
    // Hold the reservation's currently free GPUs in the what-if cluster: what remains free
    // there is what the reservation leaves spare. A job that ends before T and starts on
    // them takes them over.
    WhatIf& what_if = ctx.what_if();
    Placement held;
    for (const auto& a : reserved_gpus_) {
      const GpuMask mask = a.gpus & what_if.cluster().node(a.node).free_mask;
      if (mask != 0) held.push_back({a.node, mask});
    }
    if (!held.empty()) what_if.hold(held);
    if (full_pass) {
      full_backfill_pass(ctx, decisions);
    } else {
      for (const QueueEntry& entry : fresh) {
        if (!can_fit_any(ctx)) break;
        try_backfill(ctx, decisions, entry.second);
      }
    }
    what_if.reset();
  }

  // Every queued job but the head, in queue order, except those whose GPU count cannot fit
  // the free GPUs (more than any node has free, for a job that fits on one node; more than
  // are free, for a larger one), or the spare GPUs when no queued job can end by T: they
  // would be refused anyway. Implemented as a merge of the
  // per-GPU-count queues that can still fit, so a pass over a long queue whose free GPUs are
  // few and scattered visits only the jobs small enough to use them.
  void full_backfill_pass(const SchedContext& ctx, Decisions& decisions) {
    using Cursor = std::pair<std::set<QueueEntry>::const_iterator, int>;  // (position, GPUs)
    auto later = [](const Cursor& a, const Cursor& b) { return *b.first < *a.first; };
    std::vector<Cursor> heap;
    // Jobs that may run past T must fit the spare GPUs (the what-if cluster holds P during the
    // pass); if no queued job is short enough to end by T, that is the bound for all of them.
    const bool any_short =
        saturating_add(ctx.now(), walltimes_queued_.begin()->first) <= reserved_ms_;
    auto make_bound = [&] { return FitBound(any_short ? ctx.cluster() : ctx.what_if().cluster()); };
    FitBound bound = make_bound();
    for (const auto& [gpus, bucket] : by_gpus_)
      if (!bucket.empty() && bound.may_fit(gpus)) heap.emplace_back(bucket.begin(), gpus);
    std::make_heap(heap.begin(), heap.end(), later);
    const JobIndex head = queue_->begin()->second;
    while (!heap.empty() && can_fit_any(ctx)) {
      std::pop_heap(heap.begin(), heap.end(), later);
      auto& [it, gpus] = heap.back();
      const JobIndex job = (it++)->second;  // `job` may leave its bucket below
      const bool more = it != by_gpus_.at(gpus).end();
      if (!bound.may_fit(gpus)) {  // free GPUs only shrink during the pass
        heap.pop_back();
        continue;
      }
      if (job != head && try_backfill(ctx, decisions, job)) bound = make_bound();
      if (more) {
        std::push_heap(heap.begin(), heap.end(), later);
      } else {
        heap.pop_back();
      }
    }
  }

  // Necessary conditions, from the free GPUs now, for a job of N GPUs to be placed.
  struct FitBound {
    explicit FitBound(const Cluster& cluster)
        : free(cluster.free_gpus()), largest_node(cluster.max_node_gpus(kAnyGpuType)) {
      for (const auto& group : cluster.groups())
        for (int k = group.gpus_per_node; k > most_free_on_a_node; --k)
          if (!group.nodes_by_free[static_cast<std::size_t>(k)].empty()) {
            most_free_on_a_node = k;
            break;
          }
    }
    bool may_fit(int gpus) const {
      return gpus <= largest_node ? gpus <= most_free_on_a_node : gpus <= free;
    }
    std::int64_t free;
    int largest_node;
    int most_free_on_a_node = 0;
  };

  // Whether any queued job could fit the free GPUs by count.
  bool can_fit_any(const SchedContext& ctx) const {
    return !gpus_queued_.empty() && ctx.cluster().free_gpus() >= gpus_queued_.begin()->first;
  }

  // Starts a non-head job now if it fits and cannot delay the reservation; true if started.
  bool try_backfill(const SchedContext& ctx, Decisions& decisions, JobIndex job) {
    const GpuTypeIndex type = ctx.job(job).gpu_type();
    const int gpus = ctx.job(job).gpus();
    if (ctx.cluster().free_gpus_of(type) < gpus) return false;
    if (saturating_add(ctx.now(), ctx.job(job).walltime_ms()) <= reserved_ms_) {
      if (!decisions.try_start(job)) return false;
    } else {
      auto placement = ctx.what_if().place(type, gpus);
      if (!placement) return false;
      decisions.start(job, std::move(*placement));
    }
    started(ctx, job);
    return true;
  }

  const QueueView* queue_ = nullptr;                  // the framework's, in submit order
  std::map<int, std::uint32_t> gpus_queued_;          // queued jobs per GPU count (smallest first)
  std::map<TimeMs, std::uint32_t> walltimes_queued_;  // queued jobs per walltime
  // The queue split by GPU count; buckets are never erased (a pass holds iterators to them).
  std::map<int, std::set<QueueEntry>> by_gpus_;
  std::set<std::pair<TimeMs, JobIndex>> running_by_end_;  // (walltime-based end, job)

  bool reservation_valid_ = false;
  JobIndex reserved_job_ = 0;
  TimeMs reserved_ms_ = kNever;
  Placement reserved_gpus_;
};

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "easy-backfill",
    "FIFO; the first job that does not fit holds a reservation (time and GPUs) that later jobs "
    "may not delay",
    {},
    [](const schedlab::PolicyParams&) { return std::make_unique<schedlab::EasyBackfillPolicy>(); }})
