#include "schedlab/attempt_log.hpp"

#include <algorithm>

#include "schedlab/output.hpp"

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
  std::string out =
      "job_id,attempt,start_time,end_time,gpus,allocated_resources,nodes,end_reason\n";
  out.reserve(out.size() + attempts_.size() * 64);
  const Cluster& cluster = ctx_->cluster();
  for (const Attempt* a : order) {
    append_csv_field(out, ctx_->spec(a->job).id);
    out += ',';
    append_int(out, a->number);
    out += ',';
    append_seconds(out, a->start_ms);
    out += ',';
    append_seconds(out, a->end_ms);
    out += ',';
    append_int(out, placement_gpu_count(a->placement));
    out += ',';
    cluster.append_gpu_id_ranges(out, a->placement);
    out += ',';
    append_int(out, static_cast<std::int64_t>(a->placement.size()));
    out += ',';
    out += end_reason(a->end);
    out += '\n';
  }
  return out;
}

}  // namespace schedlab
