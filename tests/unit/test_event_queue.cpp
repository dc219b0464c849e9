#include <catch2/catch.hpp>

#include "schedlab/event_queue.hpp"

using namespace schedlab;

TEST_CASE("event queue pops by time, then kind, then insertion order", "[event_queue]") {
  EventQueue q;
  q.push(20, EventKind::kJobArrival, 1);
  q.push(10, EventKind::kJobArrival, 2);
  q.push(10, EventKind::kWakeup, 3);
  q.push(10, EventKind::kJobEnd, 4);
  q.push(10, EventKind::kJobArrival, 5);
  q.push(5, EventKind::kWakeup, 6);
  std::vector<std::uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().subject);
  CHECK(order == std::vector<std::uint32_t>{6, 4, 2, 5, 3, 1});
}

TEST_CASE("pop_batch returns exactly the earliest instant's events", "[event_queue]") {
  EventQueue q;
  q.push(7, EventKind::kJobArrival, 1);
  q.push(3, EventKind::kJobArrival, 2);
  q.push(3, EventKind::kJobEnd, 3, 9);
  q.push(3, EventKind::kJobArrival, 4);
  std::vector<Event> batch;
  CHECK(q.pop_batch(batch) == 3);
  REQUIRE(batch.size() == 3);
  CHECK(batch[0].subject == 3);
  CHECK(batch[0].attempt == 9);
  CHECK(batch[1].subject == 2);
  CHECK(batch[2].subject == 4);
  CHECK(q.size() == 1);
  batch.clear();
  CHECK(q.pop_batch(batch) == 7);
  CHECK(batch.size() == 1);
  CHECK(q.empty());
}

TEST_CASE("event queue keeps order across many interleaved pushes", "[event_queue]") {
  EventQueue q;
  // Times descending on push; sequence breaks ties of equal (time, kind).
  for (std::uint32_t i = 0; i < 1000; ++i)
    q.push(static_cast<TimeMs>(1000 - i % 10), EventKind::kJobArrival, i);
  TimeMs last_time = 0;
  std::uint64_t last_seq = 0;
  bool first = true;
  while (!q.empty()) {
    const Event e = q.pop();
    if (!first && e.time_ms == last_time) CHECK(e.seq > last_seq);
    if (!first) CHECK(e.time_ms >= last_time);
    first = false;
    last_time = e.time_ms;
    last_seq = e.seq;
  }
}
