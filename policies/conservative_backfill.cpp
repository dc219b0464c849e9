// conservative-backfill — FIFO with conservative backfilling.
//
// Algorithm: every queued job holds a reservation in an availability profile (free GPUs over time,
// running jobs counted until their walltime-based ends). Jobs are reserved in queue order (submit
// time, then trace order): a newcomer gets the earliest start at which its GPU count is free for
// its whole walltime, after every reservation already made, so no job is ever given a slot that
// delays an earlier one. A job starts at its reservation, where the placement strategy puts it; a
// reservation at "now" starts at once, which is how jobs backfill. When a running job ends before
// its walltime (or a job is requeued) the freed capacity is offered to the queue: every queued job,
// in queue order, gives up its reservation and takes the earliest start the other reservations
// allow (never later than before, so nobody is delayed), and those that can start now start
// ("compression"). Reservations count GPUs per GPU type (TypedAvailability: a typed job in its
// type's pool, an untyped one in the pool giving it the earliest start, placed within that type, or
// in all pools when it is larger than each). Counting does not see node shapes: if at its start
// time the strategy finds no room although enough GPUs are free (fragmentation across nodes, or a
// job running past its walltime with --no-walltime-kill), the job keeps its place in the queue: it
// is reserved again from the next time the profile changes, and every later job is planned again
// after it (such a re-plan may move later jobs' reservations later; on clusters where counting is
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
#include <optional>
#include <set>
#include <utility>

#include "schedlab/error.hpp"
#include "schedlab/policy_kit.hpp"
#include "schedlab/typed_availability.hpp"

namespace schedlab {
namespace {

class ConservativeBackfillPolicy final : public Policy, public ReservationSource {
 public:
  void on_begin(const SchedContext& ctx, const RunSizes& sizes) override {
    queue_ = &ctx.queue();
    slot_.assign(sizes.jobs, {});
    availability_.emplace(ctx.cluster());
  }

  void on_finish(const SchedContext& ctx, JobIndex job) override {
    const TimeMs end_ms = ctx.job(job).walltime_end_ms();
    if (ctx.now() < end_ms) {  // ended before its walltime: capacity comes back early
      take(ctx, job, ctx.now(), end_ms, /*give=*/true);
      compress_ = true;
    }
  }

  // Requeued jobs were running (node failures: this policy never preempts).
  void on_requeue(const SchedContext& ctx, JobIndex job) override {
    on_finish(ctx, job);
    compress_ = true;  // it may belong before jobs already reserved
  }

  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    availability_->advance(ctx.now());
    if (compress_) {
      compress(ctx, decisions);
    } else {
      start_due(ctx, decisions);
      waiting_.clear();
      ctx.changes().fresh_entries(ctx, waiting_);
      waiting_.insert(waiting_.end(), unreserved_.begin(), unreserved_.end());
      unreserved_.clear();
      std::sort(waiting_.begin(), waiting_.end());
      for (const Entry& entry : waiting_) plan(ctx, decisions, entry.second, /*retry=*/false);
    }
    if (!due_.empty() && due_.begin()->first > ctx.now()) decisions.wake_at(due_.begin()->first);
  }

  std::vector<std::pair<JobIndex, TimeMs>> reservations() const override { return by_job(due_); }

 private:
  using Entry = QueueEntry;  // (submit time, job index)

  void take(const SchedContext& ctx, JobIndex job, TimeMs from_ms, TimeMs to_ms, bool give) {
    availability_->take(slot_[job].pool, ctx.job(job).gpus(), from_ms, to_ms, give);
  }

  // Chooses the pool and start for the job, searching from now, or (retry) from the next
  // change of each profile after now. False if nothing was found (the job then waits in
  // unreserved_ for the next call).
  bool reserve(const SchedContext& ctx, JobIndex job, bool retry) {
    const JobView view = ctx.job(job);
    const auto slot =
        availability_->earliest(view.gpu_type(), view.gpus(), view.walltime_ms(), ctx.now(), retry);
    if (slot.start_ms == kNever) {
      unreserved_.emplace_back(view.submit_ms(), job);
      return false;
    }
    slot_[job] = slot;
    take(ctx, job, slot.start_ms, saturating_add(slot.start_ms, view.walltime_ms()), false);
    due_.emplace(slot.start_ms, job);
    return true;
  }

  void unreserve(const SchedContext& ctx, JobIndex job) {
    const TimeMs start_ms = std::exchange(slot_[job].start_ms, kNever);
    due_.erase({start_ms, job});
    take(ctx, job, start_ms, saturating_add(start_ms, ctx.job(job).walltime_ms()), true);
  }

  bool holds_reservation(JobIndex job) const { return slot_[job].start_ms != kNever; }

  // Starts a job whose reservation begins now where the strategy puts it within its pool.
  // False (and nothing changes) if the strategy finds no room.
  bool start_reserved(const SchedContext& ctx, Decisions& decisions, JobIndex job) {
    const GpuTypeIndex type = availability_->pool_type(slot_[job].pool);
    // A job asking for part of a GPU, CPU or memory goes where the shared placement puts it.
    auto placement = ctx.job(job).uses_sharing()
                         ? decisions.find_placement(job)
                         : ctx.placement().place(ctx.cluster(), type, ctx.job(job).gpus());
    if (!placement) return false;
    decisions.start(job, std::move(*placement));
    due_.erase({std::exchange(slot_[job].start_ms, kNever), job});
    return true;
  }

  // Reserves a queued job that holds no reservation (from the next profile change if
  // `retry`) and starts it if its slot is now and the strategy finds room; a slot at now
  // without room becomes a retry.
  void plan(const SchedContext& ctx, Decisions& decisions, JobIndex job, bool retry) {
    const Entry entry{ctx.job(job).submit_ms(), job};
    if (holds_reservation(job) || !queue_->contains(entry)) return;
    if (!reserve(ctx, job, retry)) return;
    if (slot_[job].start_ms > ctx.now() || start_reserved(ctx, decisions, job)) return;
    unreserve(ctx, job);
    reserve(ctx, job, /*retry=*/true);
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
      if (slot_[job].start_ms == ctx.now() && start_reserved(ctx, decisions, job)) continue;
      // No room (or the instant was missed): re-plan from here.
      replan(ctx, decisions, entry, /*retry_first=*/slot_[job].start_ms == ctx.now());
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
      const TimeMs before_ms = slot_[job].start_ms;
      if (holds_reservation(job)) unreserve(ctx, job);
      if (!reserve(ctx, job, /*retry=*/false)) continue;
      SCHEDLAB_ASSERT(before_ms == kNever || slot_[job].start_ms <= std::max(before_ms, ctx.now()),
                      "compression never moves a reservation later");
      if (slot_[job].start_ms > ctx.now() || start_reserved(ctx, decisions, job)) continue;
      replan(ctx, decisions, entry, /*retry_first=*/true);  // no room now: keep its place
      return;
    }
  }

  std::optional<TypedAvailability> availability_;
  const QueueView* queue_ = nullptr;  // the framework's, in submit order
  std::vector<Entry> unreserved_;     // found no start on a flat profile; retried next call
  std::vector<Entry> waiting_;        // scratch of schedule(): the jobs to plan this call
  std::set<std::pair<TimeMs, JobIndex>> due_;  // reservations in force: (start, job)
  std::vector<TypedAvailability::Slot> slot_;  // [job] its reservation; start kNever if none
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
    },
    false,
    schedlab::PolicyCardFacts{
        .algorithm =
            "FIFO; every queued job holds a reservation in an availability profile of free GPUs "
            "over time (running jobs until their walltime-based ends): the earliest start at which "
            "its GPUs are free for its whole walltime, after every earlier reservation. A job "
            "starts "
            "at its reservation; when a job ends early, reservations are compressed in queue "
            "order, "
            "never later than before.",
        .citation =
            "A. W. Mu'alem and D. G. Feitelson, \"Utilization, predictability, workloads, and user "
            "runtime estimates in scheduling the IBM SP2 with backfilling\", IEEE TPDS 12(6), 2001",
        .inputs_stated = true,
        .needs_walltimes = true,
    }})
