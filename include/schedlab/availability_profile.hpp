// AvailabilityProfile: free GPUs of one pool as a step function of time, from "now" on, for
// reservation-based policies (conservative backfilling).
//
// Contract: the profile starts fully free at `capacity`; reserve() takes GPUs over [from, to)
// and release() gives them back. Free never leaves [0, capacity] (asserted). Adjacent steps
// with equal free counts are merged, so the number of steps is at most twice the number of
// reservations in force. Each update costs O(log S + steps inside the interval), each search
// O(steps it scans).
#pragma once

#include <cstdint>
#include <map>

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

  std::size_t steps() const { return free_from_.size(); }

 private:
  void add(TimeMs from_ms, TimeMs to_ms, std::int64_t delta);
  // Ensures a step starts exactly at `time_ms`; returns it.
  std::map<TimeMs, std::int64_t>::iterator split(TimeMs time_ms);

  std::int64_t capacity_;
  TimeMs origin_ms_ = 0;
  // key: start of a step; value: free GPUs from there until the next key (the last step lasts
  // forever). The first key is always origin_ms_.
  std::map<TimeMs, std::int64_t> free_from_;
};

// a + b for non-negative durations, saturating at kNever.
inline TimeMs saturating_add(TimeMs a, TimeMs b) {
  return a > kNever - b ? kNever : a + b;
}

}  // namespace schedlab
