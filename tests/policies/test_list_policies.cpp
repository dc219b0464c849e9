// Hand-checked schedules for the list policies: priority (blocking, non-blocking, aging) and
// sjf. Every expected start time below is worked out in the comment above it.
#include <catch2/catch.hpp>

#include "policies/policy_support.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// One 4-GPU node. a holds 3 GPUs until 100; b (priority 1) needs all 4; c (priority 0) needs
// 1; d (priority 2) needs 2.
const char* kPriorityTrace =
    "id,submit_time,gpus,duration,priority\n"
    "a,0,3,100,0\n"
    "b,10,4,100,1\n"
    "c,20,1,50,0\n"
    "d,30,2,50,2\n";

}  // namespace

TEST_CASE("priority with head-of-line blocking", "[policies][priority]") {
  // At 20 c would fit (1 GPU free) but b, ahead of it, does not: c waits. At 100 the order is
  // d (2), b (1), c (0): d starts (2 GPUs, until 150), b does not fit and blocks c.
  // At 150 b starts (until 250); c starts at 250.
  const auto s = run_starts(kPriorityTrace, "1x4", "priority");
  CHECK(s.at("a") == 0);
  CHECK(s.at("d") == 100);
  CHECK(s.at("b") == 150);
  CHECK(s.at("c") == 250);
}

TEST_CASE("priority with blocking=false lets later jobs start", "[policies][priority]") {
  // c starts at 20 on the free GPU (until 70). At 100: d starts, b does not fit; b at 150.
  const auto s = run_starts(kPriorityTrace, "1x4", "priority", {{"blocking", "false"}});
  CHECK(s.at("a") == 0);
  CHECK(s.at("c") == 20);
  CHECK(s.at("d") == 100);
  CHECK(s.at("b") == 150);
}

TEST_CASE("priority aging is linear in the time waited", "[policies][priority]") {
  // a holds the node until 100. b (priority 0) waits from 10, c (priority 1) from 60.
  // At 100 with aging=40: b = 0 + 90/40 = 2.25, c = 1 + 40/40 = 2 -> b first (100), c at 110.
  // With aging=60: b = 1.5, c = 1.67 -> c first (100), b at 110. Without aging: c first.
  const char* trace =
      "id,submit_time,gpus,duration,priority\n"
      "a,0,4,100,0\n"
      "b,10,4,10,0\n"
      "c,60,4,10,1\n";
  auto s = run_starts(trace, "1x4", "priority", {{"aging", "40"}});
  CHECK(s.at("b") == 100);
  CHECK(s.at("c") == 110);
  s = run_starts(trace, "1x4", "priority", {{"aging", "60"}});
  CHECK(s.at("c") == 100);
  CHECK(s.at("b") == 110);
  s = run_starts(trace, "1x4", "priority");
  CHECK(s.at("c") == 100);
  CHECK(s.at("b") == 110);
}

TEST_CASE("priority ties go to the earlier submit, then trace order", "[policies][priority]") {
  // a holds the node until 50. b and c share priority and submit time: trace order puts b
  // (earlier line) first -> b at 50, c at 60; d (same priority, later submit, earlier line)
  // at 70.
  const char* trace =
      "id,submit_time,gpus,duration,priority\n"
      "a,0,4,50,0\n"
      "d,6,4,10,3\n"
      "b,5,4,10,3\n"
      "c,5,4,10,3\n";
  const auto s = run_starts(trace, "1x4", "priority");
  CHECK(s.at("b") == 50);
  CHECK(s.at("c") == 60);
  CHECK(s.at("d") == 70);
}

TEST_CASE("sjf orders by walltime and blocks on the head", "[policies][sjf]") {
  // a holds 3 of 4 GPUs until 100. b is the shortest (20 s) but needs 4; c (1 GPU, 50 s)
  // waits behind it. At 100: b runs 100-120, then c at 120.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,3,100\n"
      "b,10,4,20\n"
      "c,20,1,50\n";
  auto s = run_starts(trace, "1x4", "sjf");
  CHECK(s.at("b") == 100);
  CHECK(s.at("c") == 120);
  // blocking=false: c starts at 20 on the free GPU.
  s = run_starts(trace, "1x4", "sjf", {{"blocking", "false"}});
  CHECK(s.at("c") == 20);
  CHECK(s.at("b") == 100);
}

TEST_CASE("sjf sees walltimes, never durations, a job past its walltime is killed",
          "[policies][sjf][estimates]") {
  // b claims 30 s but needs 300: it goes first at 100 and is killed at 130; c (50 s) at 130.
  const char* trace =
      "id,submit_time,gpus,duration,walltime\n"
      "a,0,4,100,100\n"
      "c,10,4,50,50\n"
      "b,20,4,300,30\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "1x4", "sjf");
  const auto s = start_times(result.jobs_csv);
  CHECK(s.at("b") == 100);
  CHECK(s.at("c") == 130);
  const auto state = column_by_id(result, "final_state");
  CHECK(state.at("b") == "COMPLETED_WALLTIME_REACHED");
  CHECK(state.at("c") == "COMPLETED_SUCCESSFULLY");
  CHECK(column_by_id(result, "finish_time").at("b") == "130.000");
  CHECK(result.summary["restarts"]["walltime_kills"] == 1);
}
