// Priority queue of simulation events ordered by (time, kind, sequence).
//
// Contract: events at one instant pop in kind order (EventKind's numeric order), then in
// insertion order. There is no cancel: an event that became stale (a preempted job's old end)
// carries the attempt number it was made for, and the engine drops it when popped.
#pragma once

#include <cstdint>
#include <vector>

#include "schedlab/types.hpp"

namespace schedlab {

// Same-instant order: ends and node changes free or remove resources before arrivals are
// queued, and policy wake-ups come last.
enum class EventKind : std::uint8_t {
  kJobEnd = 0,
  kNodeDown = 1,
  kNodeUp = 2,
  kJobArrival = 3,
  kWakeup = 4,
};

struct Event {
  TimeMs time_ms = 0;
  EventKind kind = EventKind::kJobEnd;
  std::uint64_t seq = 0;
  std::uint32_t subject = 0;  // job or node index
  std::uint32_t attempt = 0;  // for job ends: the attempt it belongs to
};

class EventQueue {
 public:
  void push(TimeMs time_ms, EventKind kind, std::uint32_t subject, std::uint32_t attempt = 0);
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event pop();
  // Appends every event at the earliest pending time to `out`, in (kind, seq) order,
  // including events pushed at that same time while popping. Returns that time.
  TimeMs pop_batch(std::vector<Event>& out);
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  static bool later(const Event& a, const Event& b);
  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace schedlab
