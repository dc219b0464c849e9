// The framework's view of the queue: queued jobs in submit order (submit time, then trace
// order; a requeued job at its original place), with an index by GPU count built on first use
// for policies that scan only the jobs that can still fit.
//
// Contract: only the engine inserts and erases (when a job enters or leaves the queue); policies
// read. Iterators stay valid while other entries come and go (std::set).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "schedlab/job.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

using QueueEntry = std::pair<TimeMs, JobIndex>;  // (submit time, job)

class QueueView {
 public:
  using Entries = std::set<QueueEntry>;
  using const_iterator = Entries::const_iterator;

  QueueView(const std::vector<JobSpec>& jobs, const std::vector<JobState>& states)
      : jobs_(jobs), states_(states) {}

  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  bool contains(const QueueEntry& entry) const { return entries_.count(entry) != 0; }
  const_iterator lower_bound(const QueueEntry& entry) const { return entries_.lower_bound(entry); }
  JobIndex head() const { return entries_.begin()->second; }

  // Smallest GPU count and smallest walltime of the queued jobs (the queue is not empty).
  int smallest_gpus() const { return sized().gpus.begin()->first; }
  TimeMs smallest_walltime_ms() const { return sized().walltimes.begin()->first; }

  // Visits, in submit order, the queued jobs whose GPU count passes `may_fit(gpus)`, a test
  // that may only grow stricter during the visit; `visit(job)` may start the job it is given.
  // Cost: the jobs visited, times log(distinct GPU counts), plus one step per count.
  template <typename MayFit, typename Visit>
  void for_each_that_may_fit(MayFit&& may_fit, Visit&& visit) const;

  // --- the engine's side ---
  void insert(JobIndex job);
  void erase(JobIndex job);

 private:
  struct SizeIndex {
    bool on = false;
    std::map<int, std::uint32_t> gpus;          // queued jobs per GPU count
    std::map<TimeMs, std::uint32_t> walltimes;  // queued jobs per walltime
    // Entries by GPU count; buckets are never erased (a visit holds iterators to them).
    std::map<int, Entries> by_gpus;
  };
  const SizeIndex& sized() const;
  void add_sized(SizeIndex& index, JobIndex job) const;

  const std::vector<JobSpec>& jobs_;
  const std::vector<JobState>& states_;
  Entries entries_;
  mutable SizeIndex sized_;
};

template <typename MayFit, typename Visit>
void QueueView::for_each_that_may_fit(MayFit&& may_fit, Visit&& visit) const {
  using Cursor = std::pair<const_iterator, int>;  // (position in its bucket, GPU count)
  auto later = [](const Cursor& a, const Cursor& b) { return *b.first < *a.first; };
  std::vector<Cursor> heap;
  for (const auto& [gpus, bucket] : sized().by_gpus)
    if (!bucket.empty() && may_fit(gpus)) heap.emplace_back(bucket.begin(), gpus);
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    auto& [it, gpus] = heap.back();
    const JobIndex job = (it++)->second;  // `job` may leave its bucket in visit()
    const bool more = it != sized_.by_gpus.at(gpus).end();
    if (!may_fit(gpus)) {  // the test only grows stricter: this count is done
      heap.pop_back();
      continue;
    }
    if (!visit(job)) return;
    if (more) {
      std::push_heap(heap.begin(), heap.end(), later);
    } else {
      heap.pop_back();
    }
  }
}

}  // namespace schedlab
