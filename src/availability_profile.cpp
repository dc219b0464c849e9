#include "schedlab/availability_profile.hpp"

#include <iterator>

#include "schedlab/error.hpp"

namespace schedlab {

AvailabilityProfile::AvailabilityProfile(std::int64_t capacity) : capacity_(capacity) {
  SCHEDLAB_ASSERT(capacity >= 0, "profile capacity is not negative");
  free_from_.emplace(0, capacity);
}

void AvailabilityProfile::advance(TimeMs now_ms) {
  if (now_ms <= origin_ms_) return;
  auto after = free_from_.upper_bound(now_ms);
  const std::int64_t free_now = std::prev(after)->second;
  free_from_.erase(free_from_.begin(), after);
  free_from_.emplace_hint(after, now_ms, free_now);
  origin_ms_ = now_ms;
}

std::int64_t AvailabilityProfile::free_at(TimeMs time_ms) const {
  SCHEDLAB_ASSERT(time_ms >= origin_ms_, "profile asked about the past");
  return std::prev(free_from_.upper_bound(time_ms))->second;
}

bool AvailabilityProfile::fits(TimeMs from_ms, TimeMs length_ms, std::int64_t gpus) const {
  const TimeMs to_ms = saturating_add(from_ms, length_ms);
  for (auto it = std::prev(free_from_.upper_bound(from_ms));
       it != free_from_.end() && it->first < to_ms; ++it) {
    if (it->second < gpus) return false;
  }
  return true;
}

TimeMs AvailabilityProfile::earliest_start(TimeMs from_ms, TimeMs length_ms,
                                           std::int64_t gpus) const {
  SCHEDLAB_ASSERT(gpus <= capacity_, "a reservation fits the pool");
  from_ms = std::max(from_ms, origin_ms_);
  TimeMs candidate_ms = from_ms;
  for (auto it = std::prev(free_from_.upper_bound(from_ms)); it != free_from_.end(); ++it) {
    const auto next = std::next(it);
    if (it->second < gpus) {
      SCHEDLAB_ASSERT(next != free_from_.end(), "the last step of a profile is fully free");
      candidate_ms = next->first;
      continue;
    }
    if (next == free_from_.end() || next->first >= saturating_add(candidate_ms, length_ms))
      return candidate_ms;
  }
  return candidate_ms;
}

TimeMs AvailabilityProfile::next_change_after(TimeMs time_ms) const {
  const auto it = free_from_.upper_bound(time_ms);
  return it == free_from_.end() ? kNever : it->first;
}

void AvailabilityProfile::reserve(TimeMs from_ms, TimeMs to_ms, std::int64_t gpus) {
  add(from_ms, to_ms, -gpus);
}

void AvailabilityProfile::release(TimeMs from_ms, TimeMs to_ms, std::int64_t gpus) {
  add(from_ms, to_ms, gpus);
}

std::map<TimeMs, std::int64_t>::iterator AvailabilityProfile::split(TimeMs time_ms) {
  auto after = free_from_.upper_bound(time_ms);
  auto at = std::prev(after);
  if (at->first == time_ms) return at;
  return free_from_.emplace_hint(after, time_ms, at->second);
}

void AvailabilityProfile::add(TimeMs from_ms, TimeMs to_ms, std::int64_t delta) {
  from_ms = std::max(from_ms, origin_ms_);
  if (to_ms <= from_ms || delta == 0) return;
  auto first = split(from_ms);
  auto last = to_ms == kNever ? free_from_.end() : split(to_ms);
  for (auto it = first; it != last; ++it) {
    it->second += delta;
    SCHEDLAB_ASSERT(it->second >= 0 && it->second <= capacity_,
                    "profile stays within [0, capacity]");
  }
  // Merge equal neighbours at both ends of the changed range.
  if (last != free_from_.end() && std::prev(last)->second == last->second) free_from_.erase(last);
  if (first != free_from_.begin() && std::prev(first)->second == first->second)
    free_from_.erase(first);
}

}  // namespace schedlab
