#include <catch2/catch.hpp>

#include "schedlab/metrics.hpp"
#include "schedlab/output.hpp"
#include "support/builders.hpp"

using namespace schedlab;
using namespace schedlab::testing;

TEST_CASE("percentiles interpolate linearly between closest ranks", "[metrics]") {
  const std::vector<double> v = {1, 2, 3, 4};
  CHECK(percentile(v, 0) == 1.0);
  CHECK(percentile(v, 50) == 2.5);
  CHECK(percentile(v, 90) == Approx(3.7));
  CHECK(percentile(v, 100) == 4.0);
  CHECK(percentile({7}, 95) == 7.0);
}

TEST_CASE("fixed formatting rounds half away from zero and never prints -0", "[metrics][output]") {
  CHECK(fixed(12.5, 3) == "12.500");
  CHECK(fixed(0.0005, 3) == "0.001");
  CHECK(fixed(-0.0004, 3) == "0.000");
  CHECK(fixed(-1.25, 1) == "-1.3");
  CHECK(fixed(2.0 / 3.0, 6) == "0.666667");
  CHECK(fixed(123456789.0, 0) == "123456789");
  CHECK(fixed(1e300, 2).size() > 300);
}

TEST_CASE("metrics on a hand-computed two-job run", "[metrics]") {
  // 1 node x 2 A100. a: 1 GPU for 100 s from t=0. b: 2 GPUs for 50 s, waits for a until 100.
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,user,priority\na,0,1,100,u1,3\nb,0,2,50,u2,-1\n");
  RunOptions options;
  options.timeseries_interval_ms = 100'000;
  const auto r = run_checked(trace, "1x2:A100", "fifo", {}, options);
  const auto& s = r.summary;
  CHECK(s["policy"] == "fifo");
  CHECK(s["cluster"]["nodes"] == 1);
  CHECK(s["cluster"]["gpus"] == 2);
  CHECK(s["jobs"]["submitted"] == 2);
  CHECK(s["jobs"]["completed"] == 2);
  CHECK(s["jobs"]["rejected"] == 0);
  CHECK(s["makespan_s"].get<double>() == 150.0);
  CHECK(s["wait_s"]["mean"].get<double>() == 50.0);
  CHECK(s["wait_s"]["p50"].get<double>() == 50.0);
  CHECK(s["wait_s"]["p90"].get<double>() == 90.0);
  CHECK(s["wait_s"]["max"].get<double>() == 100.0);
  // Queued: a 0, b 100 (it never restarts, so queued equals its wait).
  CHECK(s["queued_s"]["mean"].get<double>() == 50.0);
  CHECK(s["queued_s"]["max"].get<double>() == 100.0);
  CHECK(s["gpu_hours"]["wasted"].get<double>() == 0.0);
  CHECK(s["jct_s"]["mean"].get<double>() == 125.0);
  CHECK(s["jct_s"]["max"].get<double>() == 150.0);
  // b: turnaround 150 / max(work 50, 10) = 3; a: 1.
  CHECK(s["bounded_slowdown"]["mean"].get<double>() == 2.0);
  CHECK(s["bounded_slowdown"]["max"].get<double>() == 3.0);
  // Busy GPU-s: a 100 + b 2x50 = 200 over capacity 2 x 150 = 300.
  CHECK(s["utilization"].get<double>() == 0.666667);
  CHECK(s["gpu_hours"]["capacity"].get<double>() == Approx(300.0 / 3600).margin(1e-6));
  CHECK(s["gpu_hours"]["busy"].get<double>() == Approx(200.0 / 3600).margin(1e-6));
  CHECK(s["gpu_hours"]["idle"].get<double>() == Approx(100.0 / 3600).margin(1e-6));
  // While b waits (0..100) one GPU is idle: 100 GPU-s.
  CHECK(s["gpu_hours"]["idle_while_jobs_wait"].get<double>() == Approx(100.0 / 3600).margin(1e-6));
  // Energy: busy 200 GPU-s x 400 W = 80 kJ; idle 100 GPU-s x 50 W = 5 kJ.
  CHECK(s["energy_kwh"]["gpu_busy"].get<double>() == Approx(80000.0 / 3.6e6).margin(1e-6));
  CHECK(s["energy_kwh"]["gpu_idle"].get<double>() == Approx(5000.0 / 3.6e6).margin(1e-6));
  CHECK(s["energy_kwh"]["total"].get<double>() == Approx(85000.0 / 3.6e6).margin(1e-6));
  CHECK(s["restarts"]["total"] == 0);
  CHECK(r.jobs_csv ==
        "job_id,submission_time,requested_number_of_resources,requested_time,starting_time,"
        "execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,"
        "consumed_energy,final_state,bounded_slowdown,restarts,user,priority,preemptions,lost_gpu_"
        "seconds,status,tenant,gpu_type,queued_time\n"
        "a,0.000,1,100.000,0.000,100.000,100.000,0.000,100.000,1.000000,0,40000.000,COMPLETED_"
        "SUCCESSFULLY,1.000000,0,u1,3,0,0.000,,,A100,0.000\n"
        "b,0.000,2,50.000,100.000,50.000,150.000,100.000,150.000,3.000000,0-1,40000.000,COMPLETED_"
        "SUCCESSFULLY,3.000000,0,u2,-1,0,0.000,,,A100,100.000\n");
  // Rows: [0,100) one busy, b queued (2 GPUs), 450 W; [100,150) both busy, 800 W.
  CHECK(r.timeseries_csv ==
        "time_s,busy_gpus,idle_gpus,queued_jobs,queued_gpus,running_jobs,power_w\n"
        "0.000,1.000,1.000,1.000,2.000,1.000,450.000\n"
        "100.000,2.000,0.000,0.000,0.000,1.000,800.000\n");
}

TEST_CASE("timeseries rows are exact time-weighted means, not samples", "[metrics]") {
  // One 4-GPU node; a (1 GPU) runs 0..30, b (2 GPUs) runs 30..90; rows of 60 s.
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\na,0,1,30\nb,30,2,60\n");
  RunOptions options;
  options.timeseries_interval_ms = 60'000;
  const auto r = run_checked(trace, "1x4:H100", "fifo", {}, options);
  // Row 0: busy = (1x30 + 2x30)/60 = 1.5; power = 1.5x700 + 2.5x70 = 1225.
  // Row 60 covers 60..90 only (the run ends at 90): busy 2, power 2x700 + 2x70 = 1540.
  CHECK(r.timeseries_csv ==
        "time_s,busy_gpus,idle_gpus,queued_jobs,queued_gpus,running_jobs,power_w\n"
        "0.000,1.500,2.500,0.000,0.000,1.000,1225.000\n"
        "60.000,2.000,2.000,0.000,0.000,1.000,1540.000\n");
}

TEST_CASE("integrals stop at the last finish even if a later arrival is rejected", "[metrics]") {
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\na,0,1,10\nhuge,50,99,10\n");
  const auto r = run_checked(trace, "1x2");
  CHECK(r.summary["makespan_s"].get<double>() == 10.0);
  CHECK(r.summary["utilization"].get<double>() == 0.5);
  CHECK(r.summary["jobs"]["rejected"] == 1);
}

TEST_CASE("an interval that would need too many timeseries rows is an input error", "[metrics]") {
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\na,0,1,10\nb,100000,1,10\n");
  RunOptions options;
  options.timeseries_interval_ms = 1;
  CHECK_THROWS_WITH(
      run_checked(trace, "1x2", "fifo", {}, options),
      "--interval 0.001 s: timeseries.csv would need more than 5000000 rows for this run; use a "
      "larger interval");
}

TEST_CASE("queued time, work-based slowdown and wasted GPU-hours on hand-computed runs",
          "[metrics]") {
  // 1 node x 2 GPUs, preemptive, restart overhead 10 s, a checkpoint every 1000 s of work (so
  // none before the preemption below: with interval 0 a preemption would save all work).
  // lo: 2 GPUs, 100 s of work, priority 0, submitted at 0, starts at once.
  // hi: 2 GPUs, 50 s, priority 5, submitted at 40: preempts lo (40 s of work lost), runs 40-90.
  // lo restarts at 90 with 10 s of overhead, redoes its 100 s: finishes at 200.
  const Trace trace =
      trace_from_csv("id,submit_time,gpus,duration,priority\nlo,0,2,100,0\nhi,40,2,50,5\n");
  RunOptions options;
  options.restart_overhead_ms = 10'000;
  options.checkpoint_interval_ms = 1'000'000;
  options.walltime_kill = false;  // lo's walltime is its duration, which the restart exceeds
  const auto r = run_checked(trace, "1x2:A100", "preemptive", {}, options);
  const auto& s = r.summary;
  REQUIRE(s["restarts"]["preemptions"] == 1);
  // lo: wait 0, but queued 90 - 40 = 50 s between its attempts; hi: 0.
  CHECK(s["wait_s"]["max"].get<double>() == 0.0);
  CHECK(s["queued_s"]["max"].get<double>() == 50.0);
  CHECK(s["queued_s"]["mean"].get<double>() == 25.0);
  // lo: turnaround 200 over its work 100 = 2 (it held GPUs 150 s: dividing by that would give
  // 1.333, rewarding the 40 s it redid and the 10 s of overhead); hi: 50 / 50 = 1.
  CHECK(s["bounded_slowdown"]["max"].get<double>() == 2.0);
  CHECK(s["bounded_slowdown"]["mean"].get<double>() == 1.5);
  // Lost: 40 s redone + 10 s overhead, on 2 GPUs = 100 GPU-s. Nothing was killed: wasted = lost.
  CHECK(s["gpu_hours"]["lost"].get<double>() == Approx(100.0 / 3600).margin(1e-6));
  CHECK(s["gpu_hours"]["wasted"].get<double>() == Approx(100.0 / 3600).margin(1e-6));
  CHECK_THAT(r.jobs_csv, Catch::Contains(",A100,50.000\n"));

  // Walltime kills: k (1 GPU, 300 s of work, walltime 120 s) is killed at 120 after holding its
  // GPU 120 s, all of it wasted, though none of it counts as lost; d (1 GPU, 60 s) completes.
  const Trace killed =
      trace_from_csv("id,submit_time,gpus,duration,walltime\nk,0,1,300,120\nd,0,1,60,600\n");
  const auto k = run_checked(killed, "1x2:A100", "fifo", {}, RunOptions{});
  REQUIRE(k.summary["restarts"]["walltime_kills"] == 1);
  CHECK(k.summary["gpu_hours"]["lost"].get<double>() == 0.0);
  CHECK(k.summary["gpu_hours"]["wasted"].get<double>() == Approx(120.0 / 3600).margin(1e-6));
  // k's slowdown is over its work: 120 / 300 < 1, so 1.
  CHECK(k.summary["bounded_slowdown"]["max"].get<double>() == 1.0);
}
