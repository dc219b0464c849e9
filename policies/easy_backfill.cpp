// easy-backfill — FIFO with EASY backfilling.
//
// Algorithm: jobs start in submit-time order (ties: trace order) while they fit. The first job
// that does not fit (the head) gets a reservation: the earliest time T at which the placement
// strategy finds room for it once running jobs end at their walltime-based ends
// (last start + walltime), and GPUs P on the nodes the strategy would choose then. Within each
// of those nodes P takes the GPUs that running jobs release by T before GPUs free now (lowest
// index first in each group), so P leaves as many GPUs that are free now outside it as the node
// allows. A later job, taken in queue order, starts now only if it fits and cannot delay the
// head:
// - it ends by T (now + walltime <= T): it goes on the nodes the strategy chooses, taking within
//   each node the free GPUs of P first (they are back by T), then others; or
// - it is placed by the strategy among the free GPUs outside P only.
// On interchangeable GPUs (one node) this is count-based EASY exactly: a long job may take
// min(free now, GPUs free at T - head's GPUs) GPUs, a short one any free GPUs.
// In runs that share GPUs (docs/gpu-sharing.md), "ends by T" counts a possible MIG layout change
// (now + --mig-reconfig + walltime <= T); a job the shared placement places that may run past T
// is not started on any GPU of P (P plans in whole GPUs; the head never places shares on P);
// and a GPU counts as released by T only when every job holding part of it ends by T.
// At T the head starts where the strategy puts it; if the strategy finds no room although P is
// free, it starts on P. The reservation is computed again when the head changes, when a running
// job ends before its walltime, when a node changes state (failure, repair, power saving), or
// when T has passed without the head starting (a job ran past its walltime with
// --no-walltime-kill). When jobs end as planned, T holds and P's GPUs are chosen again on its
// nodes by the same rule (released by T first). Between releases only starts happen, and they
// keep what P leaves spare exactly as count-based EASY's extra GPUs. A job that could not be
// backfilled is examined again only once GPUs were released or the reservation changed; until then
// only newly queued jobs are tried. Parameters: none. Data structures: the framework's queue view
// (submit, index) and its index by GPU count, so a backfill pass merges only the counts that can
// still fit the free GPUs; the framework's running jobs by walltime end, so computing T releases
// only the jobs ending before it, in the framework's what-if cluster where the strategy is asked
// "what if". Citation: D. A. Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995, LNCS 949; A. W.
// Mu'alem and D. G. Feitelson, "Utilization, predictability, workloads, and user runtime estimates
// in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001.
#include <algorithm>
#include <bit>

#include "schedlab/error.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/policy_kit.hpp"
#include "schedlab/run_options.hpp"

namespace schedlab {
namespace {

class EasyBackfillPolicy final : public Policy, public ReservationSource {
 public:
  void on_begin(const SchedContext& ctx, const RunSizes& sizes) override {
    queue_ = &ctx.queue();
    slot_of_node_.assign(sizes.nodes, -1);
  }

  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    const Changes& changes = ctx.changes();
    // Capacity came back before a walltime-based end, or nodes came or went: T may be earlier.
    if (changes.ended_early || changes.nodes_changed) reservation_valid_ = false;
    start_from_head(ctx, decisions);
    if (queue_->empty()) return;
    bool full_pass = changes.released();
    if (!reservation_valid_ || reserved_job_ != queue_->head() || reserved_ms_ <= ctx.now()) {
      compute_reservation(ctx, queue_->head());
      full_pass = true;
    } else if (full_pass) {
      rechoose_reserved_gpus(ctx);  // jobs ended as planned: T holds, P's free GPUs changed
    }
    backfill(ctx, decisions, full_pass);
  }

  std::vector<std::pair<JobIndex, TimeMs>> reservations() const override {
    if (!reservation_valid_ || reserved_ms_ == kNever || queue_->empty() ||
        queue_->head() != reserved_job_)
      return {};
    return {{reserved_job_, reserved_ms_}};
  }

 private:
  void started(JobIndex job) {
    if (job == reserved_job_) reservation_valid_ = false;
  }

  void start_from_head(const SchedContext& ctx, Decisions& decisions) {
    while (!queue_->empty()) {
      const JobIndex job = queue_->head();
      if (ctx.may_start_now(job) && decisions.try_start(job)) {
        started(job);
        continue;
      }
      // The strategy may prefer other GPUs than the reserved ones; the promise is kept on P.
      // (Not for a job the shared placement places: P counts whole GPUs only.)
      if (reservation_valid_ && reserved_job_ == job && reserved_ms_ <= ctx.now() &&
          !ctx.job(job).uses_sharing() && ctx.cluster().can_allocate(reserved_gpus_)) {
        decisions.start(job, reserved_gpus_);
        started(job);
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
    const RunningByEnd& running = ctx.running_by_walltime_end();
    for (auto it = running.begin(); it != running.end();) {
      const TimeMs end_ms = it->first;
      for (; it != running.end() && it->first == end_ms; ++it) what_if.release(it->second);
      if (auto placement = what_if.place(ctx.job(head).gpu_type(), ctx.job(head).gpus())) {
        reserved_ms_ = std::max(end_ms, ctx.now());
        // Released by T first: what P leaves outside it is free now.
        reserved_gpus_ = first_within_nodes(
            std::move(*placement),
            [&](NodeIndex node) { return what_if.cluster().node(node).free_mask; },
            [&](NodeIndex node) { return ~ctx.cluster().node(node).free_mask; });
        break;
      }
    }
    what_if.reset();
  }

  // P again on its nodes, with T unchanged: GPUs released by T first (jobs ended as planned,
  // so GPUs of P may be free now while jobs that end by T hold others).
  void rechoose_reserved_gpus(const SchedContext& ctx) {
    if (reserved_ms_ == kNever) return;
    // [i]: GPUs of P's i-th node that running jobs hold now and release by T.
    back_by_t_.assign(reserved_gpus_.size(), 0);
    for (std::size_t i = 0; i < reserved_gpus_.size(); ++i)
      slot_of_node_[reserved_gpus_[i].node] = static_cast<std::int32_t>(i);
    const RunningByEnd& running = ctx.running_by_walltime_end();
    auto it = running.begin();
    for (; it != running.end() && it->first <= reserved_ms_; ++it)
      for (const auto& a : ctx.job(it->second).placement())
        if (const std::int32_t slot = slot_of_node_[a.node]; slot >= 0) back_by_t_[slot] |= a.gpus;
    // A shared GPU is back only when every job holding part of it ends by T.
    if (ctx.options().gpu_sharing_on())
      for (; it != running.end(); ++it)
        for (const auto& a : ctx.job(it->second).placement())
          if (const std::int32_t slot = slot_of_node_[a.node]; slot >= 0)
            back_by_t_[slot] &= ~a.gpus;
    auto back = [&](NodeIndex node) { return back_by_t_[slot_of_node_[node]]; };
    reserved_gpus_ = first_within_nodes(
        std::move(reserved_gpus_),
        [&](NodeIndex node) { return ctx.cluster().node(node).free_mask | back(node); }, back);
    for (const auto& a : reserved_gpus_) slot_of_node_[a.node] = -1;
  }

  void backfill(const SchedContext& ctx, Decisions& decisions, bool full_pass) {
    if (!can_fit_any(ctx)) return;
    if (!full_pass) {
      fresh_.clear();
      ctx.changes().fresh_entries(ctx, fresh_);
      std::erase_if(fresh_, [this](const QueueEntry& entry) {
        return entry.second == reserved_job_ || !queue_->contains(entry);
      });
      if (fresh_.empty()) return;
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
      for (const QueueEntry& entry : fresh_) {
        if (!can_fit_any(ctx)) break;
        try_backfill(ctx, decisions, entry.second);
      }
    }
    what_if.reset();
  }

  // Every queued job but the head, in queue order, except those whose GPU count cannot fit
  // the free GPUs (PlacementBound), or the spare GPUs when no queued job can end by T: they
  // would be refused anyway. So a pass over a long queue whose free GPUs are few and
  // scattered visits only the jobs small enough to use them.
  void full_backfill_pass(const SchedContext& ctx, Decisions& decisions) {
    // Jobs that may run past T must fit the spare GPUs (the what-if cluster holds P during the
    // pass); if no queued job is short enough to end by T, that is the bound for all of them.
    const bool any_short =
        saturating_add(ctx.now(), setup_bound_ms(ctx) + queue_->smallest_walltime_ms()) <=
        reserved_ms_;
    auto make_bound = [&] {
      return PlacementBound(any_short ? ctx.cluster() : ctx.what_if().cluster());
    };
    PlacementBound bound = make_bound();
    const JobIndex head = queue_->head();
    queue_->for_each_that_may_fit([&](int gpus) { return bound.may_fit(gpus); },
                                  [&](JobIndex job) {
                                    if (job != head && try_backfill(ctx, decisions, job))
                                      bound = make_bound();  // free GPUs only shrink
                                    return can_fit_any(ctx);
                                  });
  }

  // Whether any queued job could fit the free GPUs by count.
  bool can_fit_any(const SchedContext& ctx) const {
    // A partly used GPU can take a job of one GPU that asks for part of it.
    return !queue_->empty() && (ctx.cluster().free_gpus() >= queue_->smallest_gpus() ||
                                (ctx.capacity_left() && queue_->smallest_gpus() <= 1));
  }

  // Starts a non-head job now if it fits and cannot delay the reservation; true if started.
  bool try_backfill(const SchedContext& ctx, Decisions& decisions, JobIndex job) {
    const GpuTypeIndex type = ctx.job(job).gpu_type();
    const int gpus = ctx.job(job).gpus();
    if (!ctx.may_start_now(job)) return false;
    const bool ends_by_t =
        saturating_add(ctx.now(), setup_bound_ms(ctx) + ctx.job(job).walltime_ms()) <= reserved_ms_;
    if (ctx.job(job).uses_sharing()) {
      // Shared placement: where it puts the job, unless the job may run past T and that takes a
      // GPU of the reservation (idle now, or to be released by T).
      auto placement = decisions.find_placement(job);
      if (!placement) return false;
      if (!ends_by_t)
        for (const auto& a : *placement)
          if ((a.gpus & reserved_mask_on(a.node)) != 0) return false;
      decisions.start(job, std::move(*placement));
    } else if (ends_by_t) {
      // Back by T: on P's free GPUs first, keeping the spare ones for jobs that run past T.
      auto placement = decisions.find_placement(job);
      if (!placement) return false;
      decisions.start(job, first_within_nodes(
                               std::move(*placement),
                               [&](NodeIndex node) { return ctx.cluster().node(node).free_mask; },
                               [&](NodeIndex node) { return reserved_mask_on(node); }));
    } else {
      auto placement = ctx.what_if().place(type, gpus);
      if (!placement) return false;
      decisions.start(job, std::move(*placement));
    }
    started(job);
    return true;
  }

  // `placement` with, on each of its nodes, as many GPUs re-chosen among free(node): those in
  // first(node) before the others, lowest index first within each group.
  template <typename FreeMask, typename FirstMask>
  static Placement first_within_nodes(Placement placement, FreeMask free, FirstMask first) {
    for (auto& a : placement) {
      const GpuMask pool = free(a.node);
      SCHEDLAB_ASSERT((a.gpus & ~pool) == 0, "a placement takes free GPUs");
      const GpuMask preferred = pool & first(a.node);
      const int count = a.gpu_count();
      const int from_preferred = std::min(count, std::popcount(preferred));
      a.gpus = placement_kit::lowest_free_bits(preferred, from_preferred) |
               placement_kit::lowest_free_bits(pool & ~preferred, count - from_preferred);
    }
    return placement;
  }

  // Longest a start may wait before its walltime clock starts: a MIG layout change in runs that
  // share GPUs (--mig-reconfig), else 0.
  static TimeMs setup_bound_ms(const SchedContext& ctx) {
    return ctx.options().gpu_sharing_on() ? ctx.options().mig_reconfig_ms : 0;
  }

  // The reservation's GPUs on `node` (none when it holds nothing there).
  GpuMask reserved_mask_on(NodeIndex node) const {
    for (const auto& a : reserved_gpus_)
      if (a.node == node) return a.gpus;
    return 0;
  }

  const QueueView* queue_ = nullptr;  // the framework's, in submit order
  bool reservation_valid_ = false;
  JobIndex reserved_job_ = 0;
  TimeMs reserved_ms_ = kNever;
  Placement reserved_gpus_;
  std::vector<QueueEntry> fresh_;   // scratch of backfill(): jobs queued since the last call
  std::vector<GpuMask> back_by_t_;  // scratch of rechoose_reserved_gpus()
  std::vector<std::int32_t> slot_of_node_;  // [node]: its index in P there, else -1
};

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "easy-backfill",
    "FIFO; the first job that does not fit holds a reservation (time and GPUs) that later jobs "
    "may not delay",
    {},
    [](const schedlab::PolicyParams&) { return std::make_unique<schedlab::EasyBackfillPolicy>(); },
    false,
    schedlab::PolicyCardFacts{
        .algorithm =
            "FIFO; the first job that does not fit (the head) gets a reservation: the earliest "
            "time "
            "T at which running jobs, ending at their walltimes, leave room for it, and the GPUs P "
            "it "
            "would take then. A later job starts now only if it fits and cannot delay the head: it "
            "ends by T, or it fits on free GPUs outside P.",
        .citation =
            "D. A. Lifka, \"The ANL/IBM SP scheduling system\", JSSPP 1995, LNCS 949; A. W. "
            "Mu'alem "
            "and D. G. Feitelson, \"Utilization, predictability, workloads, and user runtime "
            "estimates in scheduling the IBM SP2 with backfilling\", IEEE TPDS 12(6), 2001",
        .inputs_stated = true,
        .needs_walltimes = true,
    }})
