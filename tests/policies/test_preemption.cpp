// Hand-checked schedules for the preempting policies: preemptive and las. Restart overhead
// and checkpoint arithmetic are worked out in the comments.
#include <catch2/catch.hpp>

#include "policies/policy_support.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

RunOptions with_overhead_s(double seconds) {
  RunOptions options;
  options.restart_overhead_ms = static_cast<TimeMs>(seconds * 1000);
  return options;
}

}  // namespace

TEST_CASE("preemptive: a higher-priority job preempts and the victim resumes",
          "[policies][preemptive]") {
  // One 4-GPU node, default options (checkpoint at preemption, 30 s restart overhead).
  // b (priority 5) arrives at 10 and preempts a (priority 0), which has done 10 s of work.
  // b runs 10-60; a restarts at 60: 30 s overhead + 90 s left -> ends at 180, within its
  // 200 s walltime. Lost work: only the overhead, 30 s x 4 GPUs = 120 GPU-s.
  const char* trace =
      "id,submit_time,gpus,duration,priority,walltime\n"
      "a,0,4,100,0,200\n"
      "b,10,2,50,5,50\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "1x4", "preemptive");
  const auto s = start_times(result.jobs_csv);
  CHECK(s.at("a") == 0);
  CHECK(s.at("b") == 10);
  CHECK(column_by_id(result, "finish_time").at("a") == "180.000");
  CHECK(column_by_id(result, "preemptions").at("a") == "1");
  CHECK(column_by_id(result, "lost_gpu_seconds").at("a") == "120.000");
  CHECK(column_by_id(result, "preemptions").at("b") == "0");
  CHECK(result.summary["restarts"]["preemptions"] == 1);
  CHECK(result.summary["gpu_hours"]["lost"].get<double>() == Approx(120.0 / 3600).margin(1e-6));
}

TEST_CASE("preemptive: min_runtime protects a job, then the policy wakes itself",
          "[policies][preemptive]") {
  // With min_runtime=20, a (started at 0) is protected until 20; b preempts it at 20 and runs
  // 20-70. a resumes at 70 with 80 s left after 30 s overhead -> ends at 180.
  const char* trace =
      "id,submit_time,gpus,duration,priority,walltime\n"
      "a,0,4,100,0,200\n"
      "b,10,2,50,5,50\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "1x4", "preemptive", {{"min_runtime", "20"}});
  const auto s = start_times(result.jobs_csv);
  CHECK(s.at("b") == 20);
  CHECK(column_by_id(result, "finish_time").at("a") == "180.000");
}

TEST_CASE("preemptive: a restarted attempt gets its walltime again, overhead included",
          "[policies][preemptive][estimates]") {
  // Exact estimates: a's walltime is its 100 s duration. Preempted at 10 after 10 s of work,
  // it restarts at 60 needing 30 s overhead + 90 s of work = 120 s > 100 s: killed at 160
  // with 70 s of the 90 done.
  const char* trace =
      "id,submit_time,gpus,duration,priority\n"
      "a,0,4,100,0\n"
      "b,10,2,50,5\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "1x4", "preemptive");
  CHECK(column_by_id(result, "final_state").at("a") == "COMPLETED_WALLTIME_REACHED");
  CHECK(column_by_id(result, "finish_time").at("a") == "160.000");
  CHECK(result.summary["restarts"]["walltime_kills"] == 1);
  CHECK(result.summary["restarts"]["preemptions"] == 1);
}

TEST_CASE("preemptive: only strictly lower priority, only preemptible jobs",
          "[policies][preemptive]") {
  // Equal priority: b waits for a (100). Non-preemptible a: c waits too.
  const char* equal =
      "id,submit_time,gpus,duration,priority\n"
      "a,0,4,100,3\n"
      "b,10,2,50,3\n";
  CHECK(run_starts(equal, "1x4", "preemptive").at("b") == 100);
  const char* pinned =
      "id,submit_time,gpus,duration,priority,preemptible\n"
      "a,0,4,100,0,0\n"
      "c,10,2,50,9,1\n";
  CHECK(run_starts(pinned, "1x4", "preemptive").at("c") == 100);
}

TEST_CASE("preemptive: victims are chosen by least work lost", "[policies][preemptive]") {
  // Checkpoints every 40 s of work. At 100: x has done 100 s (checkpoint at 80: 20 s x 2 GPUs
  // lost, plus 30 s x 2 overhead = 100 GPU-s); y has done 70 s (checkpoint at 40: 30 s x 2
  // lost + 60 = 120 GPU-s). z preempts x (cheaper) and runs 100-150 on x's GPUs. x resumes at
  // 150 from 80 s: 30 s overhead + 920 s -> ends at 1100; its lost work is 40 + 60 = 100.
  const char* trace =
      "id,submit_time,gpus,duration,priority\n"
      "x,0,2,1000,0\n"
      "y,30,2,1000,0\n"
      "z,100,2,50,5\n";
  RunOptions options;
  options.checkpoint_interval_ms = 40'000;
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "1x4", "preemptive", {}, options);
  CHECK(start_times(result.jobs_csv).at("z") == 100);
  CHECK(column_by_id(result, "preemptions").at("x") == "1");
  CHECK(column_by_id(result, "preemptions").at("y") == "0");
  CHECK(column_by_id(result, "allocated_resources").at("z") == "0-1");
  CHECK(column_by_id(result, "lost_gpu_seconds").at("x") == "100.000");
  CHECK(column_by_id(result, "finish_time").at("x") == "1100.000");
}

TEST_CASE("preemptive: a job larger than a node preempts across nodes", "[policies][preemptive]") {
  // Two 4-GPU nodes. a (node 0) and b (node 1) hold 4 GPUs each. d needs 6: a whole node
  // plus 2 on another. Preempting a alone frees 4 GPUs (not enough), so both go and d starts
  // at 10.
  const char* trace =
      "id,submit_time,gpus,duration,priority\n"
      "a,0,4,100,0\n"
      "b,0,4,100,1\n"
      "d,10,6,50,5\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "2x4", "preemptive");
  CHECK(start_times(result.jobs_csv).at("d") == 10);
  CHECK(column_by_id(result, "preemptions").at("a") == "1");
  CHECK(column_by_id(result, "preemptions").at("b") == "1");
}

TEST_CASE("las: a job demoted past the threshold is preempted by a queue-0 job",
          "[policies][las]") {
  // Threshold 100 GPU-s, no starvation guard, no restart overhead. a (4 GPUs) crosses
  // 100 GPU-s at 25 and moves to queue 1; b (queue 0) has waited since 10 and preempts it at
  // 25. b crosses at 50 into queue 1 too: same queue, no preemption; b ends at 125 and a
  // resumes (975 s left) until 1100.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,4,1000\n"
      "b,10,4,100\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "1x4", "las", {{"thresholds", "100"}, {"starvation", "0"}},
                                  with_overhead_s(0));
  const auto s = start_times(result.jobs_csv);
  CHECK(s.at("a") == 0);
  CHECK(s.at("b") == 25);
  CHECK(column_by_id(result, "finish_time").at("b") == "125.000");
  CHECK(column_by_id(result, "finish_time").at("a") == "1100.000");
  CHECK(column_by_id(result, "preemptions").at("a") == "1");
}

TEST_CASE("las: the starvation guard promotes a job after waiting a multiple of its last run",
          "[policies][las]") {
  // As above with starvation=1: a, preempted at 25 after a 25 s run, is promoted at 50, just
  // as b crosses into queue 1, and preempts b. From then on each job runs 25 s, is demoted
  // and waits 25 s before promotion: b runs [25,50) [75,100) [125,150) [175,200) and ends at
  // 200 (3 preemptions); a runs [0,25) [50,75) [100,125) [150,175) (4 preemptions), then from
  // 200 its last 900 s -> 1100.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,4,1000\n"
      "b,10,4,100\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "1x4", "las", {{"thresholds", "100"}, {"starvation", "1"}},
                                  with_overhead_s(0));
  CHECK(start_times(result.jobs_csv).at("b") == 25);
  CHECK(column_by_id(result, "finish_time").at("b") == "200.000");
  CHECK(column_by_id(result, "preemptions").at("b") == "3");
  CHECK(column_by_id(result, "preemptions").at("a") == "4");
  CHECK(column_by_id(result, "finish_time").at("a") == "1100.000");
}

TEST_CASE("las: FIFO within a queue, a job that does not fit is skipped", "[policies][las]") {
  // a (3 GPUs) runs; b (queue 0, 2 GPUs) does not fit and nothing runs in a higher-numbered
  // queue, so it is skipped and c (1 GPU) starts at 2. After c ends only 1 GPU is free; with
  // the default threshold of 3600 GPU-s, a (3 GPUs) reaches queue 1 at 1200 s and b preempts
  // it then.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,3,5000\n"
      "b,1,2,10\n"
      "c,2,1,10\n";
  const auto s = run_starts(trace, "1x4", "las", {{"starvation", "0"}}, with_overhead_s(0));
  CHECK(s.at("a") == 0);
  CHECK(s.at("c") == 2);
  CHECK(s.at("b") == 1200);
}
