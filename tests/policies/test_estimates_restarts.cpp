// Estimates, walltime kills, checkpoints and restarts as policies see them and as the metrics
// report them.
#include <catch2/catch.hpp>

#include "policies/policy_support.hpp"
#include "schedlab/error.hpp"

using namespace schedlab;
using namespace schedlab::testing;

TEST_CASE("estimates: exact by default, factor:X scales, column requires walltimes",
          "[policies][estimates]") {
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,1,100\n"
      "b,0,1,40\n";
  const Trace t = trace_from_csv(trace);
  auto result = run_checked(t, "1x4", "sjf");
  CHECK(result.summary["options"]["estimate"] == "exact");
  CHECK(column_by_id(result, "requested_time").at("a") == "100.000");

  RunOptions factor;
  parse_estimate("factor:2.5", factor);
  result = run_checked(t, "1x4", "sjf", {}, factor);
  CHECK(result.summary["options"]["estimate"] == "factor:2.5");
  CHECK(column_by_id(result, "requested_time").at("a") == "250.000");
  CHECK(column_by_id(result, "requested_time").at("b") == "100.000");

  RunOptions column;
  parse_estimate("column", column);
  CHECK_THROWS_AS(run_checked(t, "1x4", "sjf", {}, column), InputError);
}

TEST_CASE("walltime kill ends an attempt at start + walltime, --no-walltime-kill does not",
          "[policies][estimates]") {
  const char* trace =
      "id,submit_time,gpus,duration,walltime\n"
      "a,0,4,100,60\n"
      "b,5,4,10,10\n";
  const Trace t = trace_from_csv(trace);
  auto result = run_checked(t, "1x4", "easy-backfill");
  CHECK(column_by_id(result, "final_state").at("a") == "COMPLETED_WALLTIME_REACHED");
  CHECK(column_by_id(result, "finish_time").at("a") == "60.000");
  CHECK(start_times(result.jobs_csv).at("b") == 60);
  CHECK(result.summary["restarts"]["walltime_kills"] == 1);

  RunOptions no_kill;
  no_kill.walltime_kill = false;
  result = run_checked(t, "1x4", "easy-backfill", {}, no_kill);
  CHECK(column_by_id(result, "final_state").at("a") == "COMPLETED_SUCCESSFULLY");
  CHECK(start_times(result.jobs_csv).at("b") == 100);
}

TEST_CASE("checkpoint interval and restart overhead from the trace override the options",
          "[policies][restarts]") {
  // x: checkpoints every 30 s of work, 5 s restart overhead (trace columns). Preempted by z at
  // 100 after 100 s of work: checkpoint at 90, 10 s x 2 GPUs lost. Restarts at 150 (z ends):
  // 5 s overhead + 910 s -> ends 1065. Lost: 20 + 5 x 2 = 30 GPU-s.
  // y: run defaults (checkpoint at preemption, 30 s overhead); never preempted: z needs 2 GPUs
  // and x is the cheaper victim (30 vs 60 GPU-s).
  const char* trace =
      "id,submit_time,gpus,duration,priority,checkpoint_interval,restart_overhead\n"
      "x,0,2,1000,0,30,5\n"
      "y,0,2,1000,0,,\n"
      "z,100,2,50,1,,\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "1x4", "preemptive");
  CHECK(column_by_id(result, "preemptions").at("x") == "1");
  CHECK(column_by_id(result, "preemptions").at("y") == "0");
  CHECK(column_by_id(result, "lost_gpu_seconds").at("x") == "30.000");
  CHECK(column_by_id(result, "finish_time").at("x") == "1065.000");
  CHECK(column_by_id(result, "restarts").at("x") == "1");
  CHECK(result.summary["restarts"]["total"] == 1);
  CHECK(result.summary["gpu_hours"]["lost"].get<double>() == Approx(30.0 / 3600).margin(1e-6));
}

TEST_CASE("a preemption during the restart overhead loses the overhead, not the work",
          "[policies][restarts]") {
  // Priorities: a 0, b 5, c 9; one 4-GPU node, 30 s overhead, checkpoint at preemption; a's
  // walltime (300 s) leaves room for both restarts.
  // b preempts a at 10 (a: 10 s done). b ends at 30; a restarts at 30 (overhead until 60).
  // c preempts a at 40, inside the overhead: a's work stays 10 s. c runs 40-50; a restarts
  // at 50: 30 s overhead + 90 s -> ends 170. a's lost work is overhead only: 10 s x 4 GPUs
  // in attempt 2 (cut short at 40) and 30 s x 4 in attempt 3 -> 160 GPU-s.
  const char* trace =
      "id,submit_time,gpus,duration,priority,walltime\n"
      "a,0,4,100,0,300\n"
      "b,10,4,20,5,20\n"
      "c,40,4,10,9,10\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "1x4", "preemptive");
  CHECK(column_by_id(result, "preemptions").at("a") == "2");
  CHECK(column_by_id(result, "finish_time").at("a") == "170.000");
  CHECK(column_by_id(result, "lost_gpu_seconds").at("a") == "160.000");
}
