#include "schedlab/invariant_observer.hpp"

#include <bit>

#include <fmt/format.h>

#include "schedlab/error.hpp"

namespace schedlab {

namespace {
[[noreturn]] void violated(const std::string& what) {
  throw InvariantError("invariant observer: " + what);
}
}  // namespace

void InvariantObserver::on_begin(const RunView& ctx) {
  owner_.clear();
  for (const auto& node : ctx.cluster().nodes())
    owner_.emplace_back(static_cast<std::size_t>(node.gpus), 0);
  held_gpus_ = 0;
  last_time_ms_ = ctx.now();
}

void InvariantObserver::check_capacity(const RunView& ctx) const {
  const Cluster& cluster = ctx.cluster();
  if (held_gpus_ > cluster.total_gpus())
    violated(fmt::format("{} GPUs held, capacity {}", held_gpus_, cluster.total_gpus()));
  if (cluster.busy_gpus() != held_gpus_)
    violated(
        fmt::format("cluster says {} busy GPUs, jobs hold {}", cluster.busy_gpus(), held_gpus_));
  std::int64_t running_gpus = 0;
  for (JobIndex j : ctx.running()) {
    if (ctx.state(j).status != JobStatus::kRunning)
      violated("a job in the running set is not running");
    running_gpus += ctx.spec(j).gpus;
  }
  if (ctx.sharing() != nullptr) {
    // Shared GPUs: jobs need more GPUs than are busy; the milli, CPU and memory books must hold.
    ctx.check_sharing_invariants();
    return;
  }
  if (running_gpus != held_gpus_)
    violated(fmt::format("running jobs need {} GPUs, {} are held", running_gpus, held_gpus_));
}

void InvariantObserver::on_advance(const RunView& ctx, TimeMs from_ms, TimeMs to_ms) {
  if (from_ms < last_time_ms_ || to_ms <= from_ms)
    violated(fmt::format("time advanced from {} to {} after {}", from_ms, to_ms, last_time_ms_));
  last_time_ms_ = to_ms;
  check_capacity(ctx);
}

void InvariantObserver::on_job(const RunView& ctx, JobIndex job, JobTransition what) {
  ++transitions_;
  const JobState& state = ctx.state(job);
  const auto job_id = ctx.spec(job).id;
  // A slot holds 0 (idle), job + 1 (held whole) or minus the number of jobs holding part of it.
  const bool shares = ctx.sharing() != nullptr && ctx.spec(job).shares_a_gpu();
  auto share = [&](int delta) {
    const auto& a = state.placement.front();
    auto& slot = owner_[a.node][static_cast<std::size_t>(std::countr_zero(a.gpus))];
    if (slot > 0 || (delta < 0 && slot == 0))
      violated(fmt::format("job '{}': its share of GPU {} of node {} is not a share", job_id,
                           std::countr_zero(a.gpus), a.node));
    if (slot == 0) ++held_gpus_;
    slot -= delta;
    if (slot == 0) --held_gpus_;
  };
  auto mark = [&](std::int64_t from_owner, std::int64_t to_owner) {
    for (const auto& a : state.placement) {
      for (int g = 0; g < ctx.cluster().node(a.node).gpus; ++g) {
        if (((a.gpus >> g) & 1u) == 0) continue;
        auto& slot = owner_[a.node][static_cast<std::size_t>(g)];
        if (slot != from_owner)
          violated(fmt::format("job '{}': GPU {} of node {} is held by job index {}", job_id, g,
                               a.node, slot - 1));
        slot = to_owner;
      }
    }
  };
  switch (what) {
    case JobTransition::kStarted:
      if (state.status != JobStatus::kRunning) violated("started job is not running");
      if (placement_gpu_count(state.placement) != ctx.spec(job).gpus)
        violated(fmt::format("job '{}' holds {} GPUs, needs {}", job_id,
                             placement_gpu_count(state.placement), ctx.spec(job).gpus));
      if (shares) {
        share(1);
        break;
      }
      mark(0, static_cast<std::int64_t>(job) + 1);
      held_gpus_ += ctx.spec(job).gpus;
      break;
    case JobTransition::kPreempted:
    case JobTransition::kFailed:
    case JobTransition::kCompleted:
    case JobTransition::kWalltimeReached:
      if (what == JobTransition::kPreempted) ++preemptions_;
      if (what == JobTransition::kFailed) ++failures_;
      if (shares) {
        share(-1);
        break;
      }
      mark(static_cast<std::int64_t>(job) + 1, 0);
      held_gpus_ -= ctx.spec(job).gpus;
      break;
    case JobTransition::kSubmitted:
      if (ctx.now() != ctx.spec(job).submit_ms)
        violated(fmt::format("job '{}' submitted at the wrong time", job_id));
      break;
    case JobTransition::kRejected: break;
  }
  check_capacity(ctx);
}

void InvariantObserver::on_end(const RunView& ctx) {
  for (JobIndex j = 0; j < ctx.trace().jobs.size(); ++j) {
    if (!is_final(ctx.state(j).status))
      violated(fmt::format("job '{}' ended the run {}", ctx.spec(j).id,
                           batsim_final_state(ctx.state(j).status)));
  }
  if (held_gpus_ != 0) violated("GPUs still held at the end");
}

}  // namespace schedlab
