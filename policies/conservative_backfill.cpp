// conservative-backfill — FIFO with conservative backfilling.
//
// Algorithm: every queued job holds a reservation in an availability profile (free GPUs over
// time, running jobs counted until their walltime-based ends). Jobs are reserved in queue order
// (submit time, then trace order): a newcomer gets the earliest start at which its GPU count
// is free for its whole walltime, after every reservation already made, so no job is ever
// given a slot that delays an earlier one. A job starts at its reservation, where the placement
// strategy puts it; a reservation at "now" starts at once, which is how jobs backfill.
// When a running job ends before its walltime (or a job is requeued) the freed capacity is
// offered to the queue: every queued job, in queue order, gives up its reservation and takes
// the earliest start the other reservations allow (never later than before, so nobody is
// delayed), and those that can start now start ("compression").
// Reservations count GPUs per GPU type (one profile per type with GPUs): a typed job uses its
// type's profile; an untyped job the type that gives it the earliest start (ties: lowest type
// index) and is then placed within that type; an untyped job larger than every type reserves
// the whole cluster. Counting does not see node shapes: if at its start time the strategy finds
// no room although enough GPUs are free (fragmentation across nodes, or a job running past its
// walltime with --no-walltime-kill), the job keeps its place in the queue: it is reserved
// again from the next time the profile changes, and every later job is planned again after
// it (such a re-plan may move later jobs' reservations later; on clusters where counting is
// exact, one node or whole-node jobs, it never happens with walltime kills on).
// Parameters: none.
// Data structures: the framework's queue view keyed (submit, index); one AvailabilityProfile (a
// step function on one sorted array, merged steps) per GPU type; a std::set of reservations keyed
// (start, index) so each instant only touches the reservations that start now. Without early ends
// (exact estimates) an instant costs O(log) per started or arriving job plus the profile steps the
// newcomer's search scans; a compression costs O(queue x profile steps).
// Citation: A. W. Mu'alem and D. G. Feitelson, "Utilization, predictability, workloads, and
// user runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001.
#include <algorithm>
#include <set>

#include "schedlab/availability_profile.hpp"
#include "schedlab/error.hpp"
#include "schedlab/policy_kit.hpp"

namespace schedlab {
namespace {

constexpr std::uint32_t kAllPools = 0xFFFFFFFFu;

class ConservativeBackfillPolicy final : public Policy, public ReservationSource {
 public:
  void on_begin(const SchedContext& ctx, const RunSizes& sizes) override {
    queue_ = &ctx.queue();
    start_ms_.assign(sizes.jobs, kNever);
    pool_.assign(sizes.jobs, kAllPools);
    make_pools(ctx);
  }

  void on_finish(const SchedContext& ctx, JobIndex job) override { stopped(ctx, job); }

  // Requeued jobs were running (node failures: this policy never preempts).
  void on_requeue(const SchedContext& ctx, JobIndex job) override {
    stopped(ctx, job);
    compress_ = true;  // it may belong before jobs already reserved
  }

  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    for (auto& pool : pools_) pool.profile.advance(ctx.now());
    if (compress_) {
      compress(ctx, decisions);
    } else {
      start_due(ctx, decisions);
      std::vector<Entry> waiting = ctx.changes().fresh_entries(ctx);
      waiting.insert(waiting.end(), unreserved_.begin(), unreserved_.end());
      unreserved_.clear();
      std::sort(waiting.begin(), waiting.end());
      for (const Entry& entry : waiting) plan(ctx, decisions, entry.second, /*retry=*/false);
    }
    if (!due_.empty() && due_.begin()->first > ctx.now()) decisions.wake_at(due_.begin()->first);
  }

  std::vector<std::pair<JobIndex, TimeMs>> reservations() const override {
    std::vector<std::pair<JobIndex, TimeMs>> out;
    for (const auto& [start_ms, job] : due_) out.emplace_back(job, start_ms);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  using Entry = QueueEntry;  // (submit time, job index)
  struct Pool {
    GpuTypeIndex type;
    AvailabilityProfile profile;
  };

  void make_pools(const SchedContext& ctx) {
    const Cluster& cluster = ctx.cluster();
    pool_of_type_.assign(cluster.gpu_types().size(), kAllPools);
    for (GpuTypeIndex t = 0; t < cluster.gpu_types().size(); ++t) {
      if (cluster.total_gpus_of(t) == 0) continue;
      pool_of_type_[t] = static_cast<std::uint32_t>(pools_.size());
      pools_.push_back({t, AvailabilityProfile(cluster.total_gpus_of(t))});
    }
  }

  // GPUs the job takes from pool p under its reservation.
  std::int64_t demand(const SchedContext& ctx, JobIndex job, std::uint32_t pool,
                      std::size_t p) const {
    return pool == kAllPools ? pools_[p].profile.capacity() : ctx.job(job).gpus();
  }

  void take(const SchedContext& ctx, JobIndex job, TimeMs from_ms, TimeMs to_ms, bool give) {
    const std::uint32_t pool = pool_[job];
    for (std::size_t p = 0; p < pools_.size(); ++p) {
      if (pool != kAllPools && pool != p) continue;
      const std::int64_t gpus = demand(ctx, job, pool, p);
      if (give) {
        pools_[p].profile.release(from_ms, to_ms, gpus);
      } else {
        pools_[p].profile.reserve(from_ms, to_ms, gpus);
      }
    }
  }

  void stopped(const SchedContext& ctx, JobIndex job) {
    const TimeMs end_ms = ctx.job(job).walltime_end_ms();
    if (ctx.now() < end_ms) {  // ended before its walltime: capacity comes back early
      take(ctx, job, ctx.now(), end_ms, /*give=*/true);
      compress_ = true;
    }
  }

  // Earliest start for the job in `pool` (or all pools) at or after from(p) per pool.
  template <typename FromFn>
  TimeMs earliest_in(const SchedContext& ctx, JobIndex job, std::uint32_t pool, FromFn from) const {
    const TimeMs length_ms = ctx.job(job).walltime_ms();
    if (pool != kAllPools) {
      const TimeMs from_ms = from(pool);
      if (from_ms == kNever) return kNever;
      return pools_[pool].profile.earliest_start(from_ms, length_ms, ctx.job(job).gpus());
    }
    TimeMs t = 0;
    for (std::size_t p = 0; p < pools_.size(); ++p) t = std::max(t, from(p));
    if (t == kNever) return kNever;
    while (true) {  // every pool wholly free for the walltime, from one common start
      TimeMs latest = t;
      for (std::size_t p = 0; p < pools_.size(); ++p)
        latest = std::max(
            latest, pools_[p].profile.earliest_start(t, length_ms, pools_[p].profile.capacity()));
      if (latest == t) return t;
      t = latest;
    }
  }

  // Chooses the pool and start for the job, searching from now, or (retry) from the next
  // change of each profile after now. False if nothing was found (retry with a flat profile).
  bool reserve(const SchedContext& ctx, JobIndex job, bool retry) {
    const TimeMs now_ms = ctx.now();
    auto from = [&](std::size_t p) {
      return retry ? pools_[p].profile.next_change_after(now_ms) : now_ms;
    };
    const GpuTypeIndex type = ctx.job(job).gpu_type();
    std::uint32_t best_pool = kAllPools;
    TimeMs best_ms = kNever;
    if (type != kAnyGpuType) {
      best_pool = pool_of_type_[type];
      SCHEDLAB_ASSERT(best_pool != kAllPools, "queued typed jobs have GPUs of their type");
      best_ms = earliest_in(ctx, job, best_pool, from);
    } else {
      for (std::uint32_t p = 0; p < pools_.size(); ++p) {
        if (pools_[p].profile.capacity() < ctx.job(job).gpus()) continue;
        const TimeMs t = earliest_in(ctx, job, p, from);
        if (t < best_ms) {
          best_ms = t;
          best_pool = p;
        }
      }
      if (best_pool == kAllPools) best_ms = earliest_in(ctx, job, kAllPools, from);
    }
    if (best_ms == kNever) return false;
    pool_[job] = best_pool;
    start_ms_[job] = best_ms;
    take(ctx, job, best_ms, saturating_add(best_ms, ctx.job(job).walltime_ms()), false);
    due_.emplace(best_ms, job);
    return true;
  }

  void unreserve(const SchedContext& ctx, JobIndex job) {
    const TimeMs start_ms = start_ms_[job];
    due_.erase({start_ms, job});
    take(ctx, job, start_ms, saturating_add(start_ms, ctx.job(job).walltime_ms()), true);
    start_ms_[job] = kNever;
  }

  bool holds_reservation(JobIndex job) const { return start_ms_[job] != kNever; }

  // Starts a job whose reservation begins now where the strategy puts it within its pool.
  // False (and nothing changes) if the strategy finds no room.
  bool start_reserved(const SchedContext& ctx, Decisions& decisions, JobIndex job) {
    const std::uint32_t pool = pool_[job];
    const GpuTypeIndex type = pool == kAllPools ? kAnyGpuType : pools_[pool].type;
    auto placement = ctx.placement().place(ctx.cluster(), type, ctx.job(job).gpus());
    if (!placement) return false;
    decisions.start(job, std::move(*placement));
    due_.erase({start_ms_[job], job});
    start_ms_[job] = kNever;
    return true;
  }

  // Reserves a queued job that holds no reservation (from the next profile change if
  // `retry`) and starts it if its slot is now and the strategy finds room; a slot at now
  // without room becomes a retry.
  void plan(const SchedContext& ctx, Decisions& decisions, JobIndex job, bool retry) {
    const Entry entry{ctx.job(job).submit_ms(), job};
    if (holds_reservation(job) || queue_->count(entry) == 0) return;
    if (!reserve(ctx, job, retry)) {
      unreserved_.push_back(entry);
      return;
    }
    if (start_ms_[job] > ctx.now() || start_reserved(ctx, decisions, job)) return;
    unreserve(ctx, job);
    if (!reserve(ctx, job, /*retry=*/true)) unreserved_.push_back(entry);
  }

  // Plans `first` and every later queued job again, in queue order, each at its earliest
  // start after the ones before it; with `retry_first`, `first` from the next profile change.
  void replan(const SchedContext& ctx, Decisions& decisions, const Entry& first, bool retry_first) {
    const std::vector<Entry> order(queue_->lower_bound(first), queue_->end());
    for (const Entry& entry : order)
      if (holds_reservation(entry.second)) unreserve(ctx, entry.second);
    unreserved_.erase(std::remove_if(unreserved_.begin(), unreserved_.end(),
                                     [&](const Entry& e) { return !(e < first); }),
                      unreserved_.end());
    for (const Entry& entry : order)
      plan(ctx, decisions, entry.second, retry_first && entry == first);
  }

  // Starts the reservations that begin now, in queue order. One that finds no room keeps
  // its place in the queue: it and every later job are planned again.
  void start_due(const SchedContext& ctx, Decisions& decisions) {
    std::vector<Entry> due;
    for (auto it = due_.begin(); it != due_.end() && it->first <= ctx.now(); ++it)
      due.emplace_back(ctx.job(it->second).submit_ms(), it->second);
    std::sort(due.begin(), due.end());
    for (const Entry& entry : due) {
      const JobIndex job = entry.second;
      if (start_ms_[job] == ctx.now() && start_reserved(ctx, decisions, job)) continue;
      // No room (or the instant was missed): re-plan from here.
      replan(ctx, decisions, entry, /*retry_first=*/start_ms_[job] == ctx.now());
      return;
    }
  }

  // Moves every reservation as early as the others allow, in queue order; a job whose new
  // slot is now starts. Nobody's reservation moves later.
  void compress(const SchedContext& ctx, Decisions& decisions) {
    compress_ = false;
    unreserved_.clear();
    const std::vector<Entry> order(queue_->begin(), queue_->end());
    for (const Entry& entry : order) {
      const JobIndex job = entry.second;
      const TimeMs before_ms = start_ms_[job];
      if (holds_reservation(job)) unreserve(ctx, job);
      if (!reserve(ctx, job, /*retry=*/false)) {
        unreserved_.push_back(entry);
        continue;
      }
      SCHEDLAB_ASSERT(before_ms == kNever || start_ms_[job] <= std::max(before_ms, ctx.now()),
                      "compression never moves a reservation later");
      if (start_ms_[job] > ctx.now() || start_reserved(ctx, decisions, job)) continue;
      replan(ctx, decisions, entry, /*retry_first=*/true);  // no room now: keep its place
      return;
    }
  }

  std::vector<Pool> pools_;
  std::vector<std::uint32_t> pool_of_type_;
  const QueueView* queue_ = nullptr;  // the framework's, in submit order
  std::vector<Entry> unreserved_;     // found no start on a flat profile; retried next call
  std::set<std::pair<TimeMs, JobIndex>> due_;  // reservations in force: (start, job)
  std::vector<TimeMs> start_ms_;               // [job] reservation start, kNever if none
  std::vector<std::uint32_t> pool_;
  bool compress_ = false;
};

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    "conservative-backfill",
    "FIFO; every queued job holds a reservation and may start early only if it delays no "
    "earlier job's reservation",
    {},
    [](const schedlab::PolicyParams&) {
      return std::make_unique<schedlab::ConservativeBackfillPolicy>();
    }})
