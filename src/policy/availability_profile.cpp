#include "schedlab/availability_profile.hpp"

#include <algorithm>

#include "schedlab/error.hpp"

namespace schedlab {

AvailabilityProfile::AvailabilityProfile(std::int64_t capacity) : capacity_(capacity) {
  SCHEDLAB_ASSERT(capacity >= 0, "profile capacity is not negative");
  steps_.push_back({0, capacity});
}

AvailabilityProfile::ConstIter AvailabilityProfile::step_at(TimeMs time_ms) const {
  SCHEDLAB_ASSERT(time_ms >= origin_ms_, "profile asked about the past");
  const auto after = std::upper_bound(begin(), steps_.cend(), time_ms,
                                      [](TimeMs t, const Step& s) { return t < s.start_ms; });
  return std::prev(after);
}

void AvailabilityProfile::advance(TimeMs now_ms) {
  if (now_ms <= origin_ms_) return;
  const auto at = step_at(now_ms);
  first_ = static_cast<std::size_t>(at - steps_.cbegin());
  steps_[first_].start_ms = now_ms;
  origin_ms_ = now_ms;
  if (first_ > 64 && first_ * 2 > steps_.size()) {
    steps_.erase(steps_.begin(), steps_.begin() + static_cast<std::ptrdiff_t>(first_));
    first_ = 0;
  }
}

std::int64_t AvailabilityProfile::free_at(TimeMs time_ms) const {
  return step_at(time_ms)->free;
}

bool AvailabilityProfile::fits(TimeMs from_ms, TimeMs length_ms, std::int64_t gpus) const {
  const TimeMs to_ms = saturating_add(from_ms, length_ms);
  for (auto it = step_at(std::max(from_ms, origin_ms_));
       it != steps_.cend() && it->start_ms < to_ms; ++it) {
    if (it->free < gpus) return false;
  }
  return true;
}

TimeMs AvailabilityProfile::earliest_start(TimeMs from_ms, TimeMs length_ms,
                                           std::int64_t gpus) const {
  SCHEDLAB_ASSERT(gpus <= capacity_, "a reservation fits the pool");
  from_ms = std::max(from_ms, origin_ms_);
  TimeMs candidate_ms = from_ms;
  for (auto it = step_at(from_ms); it != steps_.cend(); ++it) {
    const auto next = std::next(it);
    if (it->free < gpus) {
      SCHEDLAB_ASSERT(next != steps_.cend(), "the last step of a profile is fully free");
      candidate_ms = next->start_ms;
      continue;
    }
    if (next == steps_.cend() || next->start_ms >= saturating_add(candidate_ms, length_ms))
      return candidate_ms;
  }
  return candidate_ms;
}

TimeMs AvailabilityProfile::next_change_after(TimeMs time_ms) const {
  const auto it = std::upper_bound(begin(), steps_.cend(), std::max(time_ms, origin_ms_),
                                   [](TimeMs t, const Step& s) { return t < s.start_ms; });
  return it == steps_.cend() ? kNever : it->start_ms;
}

void AvailabilityProfile::reserve(TimeMs from_ms, TimeMs to_ms, std::int64_t gpus) {
  add(from_ms, to_ms, -gpus);
}

void AvailabilityProfile::release(TimeMs from_ms, TimeMs to_ms, std::int64_t gpus) {
  add(from_ms, to_ms, gpus);
}

std::size_t AvailabilityProfile::split(TimeMs time_ms) {
  const auto at = step_at(time_ms);
  const auto index = static_cast<std::size_t>(at - steps_.cbegin());
  if (at->start_ms == time_ms) return index;
  steps_.insert(steps_.begin() + static_cast<std::ptrdiff_t>(index) + 1, {time_ms, at->free});
  return index + 1;
}

void AvailabilityProfile::add(TimeMs from_ms, TimeMs to_ms, std::int64_t delta) {
  from_ms = std::max(from_ms, origin_ms_);
  if (to_ms <= from_ms || delta == 0) return;
  const std::size_t first = split(from_ms);
  const std::size_t last = to_ms == kNever ? steps_.size() : split(to_ms);
  for (std::size_t i = first; i < last; ++i) {
    steps_[i].free += delta;
    SCHEDLAB_ASSERT(steps_[i].free >= 0 && steps_[i].free <= capacity_,
                    "profile stays within [0, capacity]");
  }
  // Merge equal neighbours at both ends of the changed range (the right end first, so the
  // left index stays valid).
  if (last < steps_.size() && steps_[last - 1].free == steps_[last].free)
    steps_.erase(steps_.begin() + static_cast<std::ptrdiff_t>(last));
  if (first > first_ && steps_[first - 1].free == steps_[first].free)
    steps_.erase(steps_.begin() + static_cast<std::ptrdiff_t>(first));
}

}  // namespace schedlab
