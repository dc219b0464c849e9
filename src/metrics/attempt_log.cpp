#include "schedlab/attempt_log.hpp"

#include <algorithm>

#include "schedlab/output.hpp"
#include "schedlab/output_columns.hpp"

namespace schedlab {

namespace {

const char* end_reason(JobTransition what) {
  switch (what) {
    case JobTransition::kPreempted: return "preempted";
    case JobTransition::kFailed: return "failed";
    case JobTransition::kWalltimeReached: return "walltime";
    default: return "completed";
  }
}

}  // namespace

void AttemptLog::on_begin(const RunView& ctx) {
  ctx_ = &ctx;
  attempts_.clear();
}

void AttemptLog::on_job(const RunView& ctx, JobIndex job, JobTransition what) {
  if (what != JobTransition::kPreempted && what != JobTransition::kFailed &&
      what != JobTransition::kCompleted && what != JobTransition::kWalltimeReached)
    return;
  // The attempt that just ended: its start and placement are still the job's last.
  const JobState& state = ctx.state(job);
  attempts_.push_back({job, state.attempt, state.last_start_ms, ctx.now(), what, state.placement});
}

std::string AttemptLog::csv() const {
  std::vector<const Attempt*> order;
  order.reserve(attempts_.size());
  for (const Attempt& a : attempts_) order.push_back(&a);
  std::sort(order.begin(), order.end(), [](const Attempt* a, const Attempt* b) {
    return a->job != b->job ? a->job < b->job : a->number < b->number;
  });
  std::string out = attempt_csv_header();
  out.reserve(out.size() + attempts_.size() * 64);
  const Cluster& cluster = ctx_->cluster();
  for (const Attempt* a : order) {
    append_attempt_row(out, {cluster, ctx_->spec(a->job), a->number, a->start_ms, a->end_ms,
                             a->placement, end_reason(a->end)});
  }
  return out;
}

}  // namespace schedlab
