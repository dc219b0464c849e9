#include "schedlab/event_queue.hpp"

#include <algorithm>

namespace schedlab {

bool EventQueue::later(const Event& a, const Event& b) {
  if (a.time_ms != b.time_ms) return a.time_ms > b.time_ms;
  if (a.kind != b.kind) return a.kind > b.kind;
  return a.seq > b.seq;
}

void EventQueue::push(TimeMs time_ms, EventKind kind, std::uint32_t subject,
                      std::uint32_t attempt) {
  heap_.push_back(Event{time_ms, kind, next_seq_++, subject, attempt});
  std::push_heap(heap_.begin(), heap_.end(), later);
}

Event EventQueue::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), later);
  Event event = heap_.back();
  heap_.pop_back();
  return event;
}

TimeMs EventQueue::pop_batch(std::vector<Event>& out) {
  const TimeMs time_ms = heap_.front().time_ms;
  while (!heap_.empty() && heap_.front().time_ms == time_ms) out.push_back(pop());
  return time_ms;
}

}  // namespace schedlab
