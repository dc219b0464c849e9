// AvailabilityProfile: free GPUs of one pool as a step function of time, from "now" on, for
// reservation-based policies (conservative backfilling).
//
// Contract: the profile starts fully free at `capacity`; reserve() takes GPUs over [from, to)
// and release() gives them back. Free never leaves [0, capacity] (asserted). Adjacent steps
// with equal free counts are merged, so the number of steps S is at most twice the number of
// reservations in force. Steps live in one sorted array: lookups are binary searches, and the
// scans and updates walk contiguous memory (an update costs O(log S + steps inside the
// interval), plus a memmove when it adds a step; a search O(steps it scans)).
#pragma once

#include <cstdint>
#include <vector>

#include "schedlab/types.hpp"

namespace schedlab {

class AvailabilityProfile {
 public:
  explicit AvailabilityProfile(std::int64_t capacity);

  std::int64_t capacity() const { return capacity_; }
  // Forgets everything before `now_ms` (non-decreasing across calls).
  void advance(TimeMs now_ms);
  // Free GPUs at `time_ms` (>= the last advance()).
  std::int64_t free_at(TimeMs time_ms) const;
  // Whether `gpus` are free throughout [from_ms, from_ms + length_ms).
  bool fits(TimeMs from_ms, TimeMs length_ms, std::int64_t gpus) const;
  // Earliest t >= from_ms with `gpus` free throughout [t, t + length_ms). `gpus` must not
  // exceed the capacity; the answer always exists because every reservation ends.
  TimeMs earliest_start(TimeMs from_ms, TimeMs length_ms, std::int64_t gpus) const;
  // First time after `time_ms` at which the free count changes, or kNever.
  TimeMs next_change_after(TimeMs time_ms) const;

  void reserve(TimeMs from_ms, TimeMs to_ms, std::int64_t gpus);
  void release(TimeMs from_ms, TimeMs to_ms, std::int64_t gpus);

  std::size_t steps() const { return steps_.size() - first_; }

 private:
  struct Step {
    TimeMs start_ms;  // the step lasts until the next step's start (the last one forever)
    std::int64_t free;
  };
  using Iter = std::vector<Step>::iterator;
  using ConstIter = std::vector<Step>::const_iterator;
  ConstIter begin() const { return steps_.begin() + static_cast<std::ptrdiff_t>(first_); }
  Iter begin() { return steps_.begin() + static_cast<std::ptrdiff_t>(first_); }
  // The step holding `time_ms` (>= origin).
  ConstIter step_at(TimeMs time_ms) const;
  // Index of the step starting exactly at `time_ms`, splitting the one holding it if needed.
  std::size_t split(TimeMs time_ms);
  void add(TimeMs from_ms, TimeMs to_ms, std::int64_t delta);

  std::int64_t capacity_;
  TimeMs origin_ms_ = 0;
  // Sorted by start; steps_[first_] starts at origin_ms_ (earlier ones are dead, dropped in
  // bulk once they are the majority).
  std::vector<Step> steps_;
  std::size_t first_ = 0;
};

}  // namespace schedlab
