#include "schedlab/queue_view.hpp"

#include "schedlab/error.hpp"

namespace schedlab {

const QueueView::SizeIndex& QueueView::sized() const {
  if (!sized_.on) {  // built on first use, kept from then on
    sized_.on = true;
    for (const QueueEntry& entry : entries_) add_sized(sized_, entry.second);
  }
  return sized_;
}

void QueueView::add_sized(SizeIndex& index, JobIndex job) const {
  const int gpus = jobs_[job].gpus;
  ++index.gpus[gpus];
  ++index.walltimes[states_[job].walltime_ms];
  index.by_gpus[gpus].emplace(jobs_[job].submit_ms, job);
}

void QueueView::insert(JobIndex job) {
  const bool added = entries_.emplace(jobs_[job].submit_ms, job).second;
  SCHEDLAB_ASSERT(added, "a job enters the queue view once");
  if (sized_.on) add_sized(sized_, job);
}

void QueueView::erase(JobIndex job) {
  const std::size_t removed = entries_.erase({jobs_[job].submit_ms, job});
  SCHEDLAB_ASSERT(removed == 1, "only queued jobs leave the queue view");
  if (!sized_.on) return;
  const int gpus = jobs_[job].gpus;
  const auto count = sized_.gpus.find(gpus);
  if (--count->second == 0) sized_.gpus.erase(count);
  const auto walltime = sized_.walltimes.find(states_[job].walltime_ms);
  if (--walltime->second == 0) sized_.walltimes.erase(walltime);
  sized_.by_gpus[gpus].erase({jobs_[job].submit_ms, job});
}

}  // namespace schedlab
