// Hand-checked schedules for easy-backfill and conservative-backfill. Every expected start
// time is worked out in the comment above it.
#include <catch2/catch.hpp>

#include "policies/policy_support.hpp"

using namespace schedlab;
using namespace schedlab::testing;

TEST_CASE("easy-backfill starts a job that ends by the reservation", "[policies][easy]") {
  // One 4-GPU node. a holds 3 GPUs until 100; b needs 4: reservation T=100 on all 4 GPUs.
  // c (1 GPU, 98 s) ends at 100 <= T: backfilled at 2. d (1 GPU) finds no free GPU and
  // waits; at 100 b starts (until 200), d at 200.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,3,100\n"
      "b,1,4,100\n"
      "c,2,1,98\n"
      "d,3,1,50\n";
  const auto s = run_starts(trace, "1x4", "easy-backfill");
  CHECK(s.at("a") == 0);
  CHECK(s.at("b") == 100);
  CHECK(s.at("c") == 2);
  CHECK(s.at("d") == 200);
}

TEST_CASE("easy-backfill refuses a job that would outlive the reservation on its GPUs",
          "[policies][easy]") {
  // As above but c needs 99 s: 2 + 99 > 100 and the reservation covers every GPU, so c may
  // not start. d (50 s) ends at 53 <= 100: backfilled at 3. At 53 c still ends after T.
  // At 100 b starts; c at 200.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,3,100\n"
      "b,1,4,100\n"
      "c,2,1,99\n"
      "d,3,1,50\n";
  const auto s = run_starts(trace, "1x4", "easy-backfill");
  CHECK(s.at("b") == 100);
  CHECK(s.at("c") == 200);
  CHECK(s.at("d") == 3);
}

TEST_CASE("easy-backfill lets long jobs use GPUs the reservation leaves spare",
          "[policies][easy]") {
  // Two 4-GPU nodes, pack. a takes node 0 (GPUs 0-3) until 100; b takes 3 GPUs of node 1
  // (4-6) until 200. c needs 4: at 100 node 0 frees, so T=100 on GPUs 0-3. d (1 GPU, 500 s)
  // runs past T but the only free GPU, 7, is outside the reservation: starts at 2 on GPU 7.
  // e (1 GPU, 10 s) finds nothing free until c's end at 150 and starts then.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,4,100\n"
      "b,0,3,200\n"
      "c,1,4,50\n"
      "d,2,1,500\n"
      "e,3,1,10\n";
  const Trace t = trace_from_csv(trace);
  const auto result = run_checked(t, "2x4", "easy-backfill");
  const auto s = start_times(result.jobs_csv);
  CHECK(s.at("a") == 0);
  CHECK(s.at("b") == 0);
  CHECK(s.at("c") == 100);
  CHECK(s.at("d") == 2);
  CHECK(s.at("e") == 150);
  const auto gpus = column_by_id(result, "allocated_resources");
  CHECK(gpus.at("d") == "7");
  CHECK(gpus.at("c") == "0-3");
}

TEST_CASE("easy-backfill backfills a typed job across nodes smaller than the largest node",
          "[policies][easy]") {
  // One 8-GPU V100 node and two 4-GPU A100 nodes. a holds the V100 node until 100; x holds an
  // A100 node until 50. b (8 V100) gets the reservation T=100 on the V100 node. c (8 A100,
  // 500 s) arrives at 2 and does not fit; at 50 x ends and c fits on the two A100 nodes,
  // outside the reservation: it starts at 50. (An 8-GPU job is larger than an A100 node, so it
  // spans nodes although the cluster's largest node has 8 GPUs: the backfill pass must not
  // skip it as a job that needs one node with 8 free GPUs.)
  const char* trace =
      "id,submit_time,gpus,duration,gpu_type\n"
      "a,0,8,100,V100\n"
      "x,0,4,50,A100\n"
      "b,1,8,100,V100\n"
      "c,2,8,500,A100\n";
  const auto s = run_starts(trace, "1x8:V100,2x4:A100", "easy-backfill");
  CHECK(s.at("a") == 0);
  CHECK(s.at("x") == 0);
  CHECK(s.at("b") == 100);
  CHECK(s.at("c") == 50);
}

TEST_CASE("easy-backfill delays the second job where conservative does not",
          "[policies][easy][conservative]") {
  // One 4-GPU node. a holds 3 GPUs until 100. b needs 2: T=100 on GPUs 0-1 (pack takes the
  // lowest free bits), GPUs 2-3 are spare. c needs all 4 for 100 s. d needs 1 GPU for 300 s.
  // EASY: d (long) may use spare GPU 3 now: starts at 3 and holds it until 303, so c, head
  // after b starts at 100, can only start at 303.
  // Conservative: reservations in queue order: b [100,200), c [200,300); d needs 1 GPU for
  // 300 s from 3: free in [3,200) but none in [200,300) -> d at 300, after c.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,3,100\n"
      "b,1,2,100\n"
      "c,2,4,100\n"
      "d,3,1,300\n";
  const auto easy = run_starts(trace, "1x4", "easy-backfill");
  CHECK(easy.at("b") == 100);
  CHECK(easy.at("c") == 303);
  CHECK(easy.at("d") == 3);
  const auto conservative = run_starts(trace, "1x4", "conservative-backfill");
  CHECK(conservative.at("b") == 100);
  CHECK(conservative.at("c") == 200);
  CHECK(conservative.at("d") == 300);
}

TEST_CASE("easy-backfill recomputes the reservation when a job ends before its walltime",
          "[policies][easy]") {
  // a claims 100 s but ends at 50: b's reservation moves from 100 to 50. c (walltime 60)
  // could not start earlier (no free GPU); b ends at 60 and c starts then.
  const char* trace =
      "id,submit_time,gpus,duration,walltime\n"
      "a,0,4,50,100\n"
      "b,1,4,10,10\n"
      "c,2,1,10,60\n";
  const auto s = run_starts(trace, "1x4", "easy-backfill");
  CHECK(s.at("b") == 50);
  CHECK(s.at("c") == 60);
}

TEST_CASE("conservative-backfill backfills into holes of the profile", "[policies][conservative]") {
  // One 4-GPU node. a: 2 GPUs [0,100). b needs 4 -> [100,150). c needs 2 for 200 s: no room
  // before b, so after it: [150,350). d needs 2 for 50 s: free in [0,50) -> starts at 0.
  // e needs 2 for 100 s: [0,100) is full from 0 to 50, [50,150) hits b, so [150,250) where
  // c leaves 2 GPUs.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,2,100\n"
      "b,0,4,50\n"
      "c,0,2,200\n"
      "d,0,2,50\n"
      "e,0,2,100\n";
  const auto s = run_starts(trace, "1x4", "conservative-backfill");
  CHECK(s.at("a") == 0);
  CHECK(s.at("b") == 100);
  CHECK(s.at("c") == 150);
  CHECK(s.at("d") == 0);
  CHECK(s.at("e") == 150);
}

TEST_CASE("conservative-backfill compresses reservations after an early end",
          "[policies][conservative]") {
  // a claims 100 s but ends at 50. Reservations first: b [100,110), c [110,130). At 50 the
  // queue is compressed in order: b to [50,60) and starts; c to [60,80) (b's walltime), so
  // c starts at 60.
  const char* trace =
      "id,submit_time,gpus,duration,walltime\n"
      "a,0,4,50,100\n"
      "b,1,4,10,10\n"
      "c,2,2,10,20\n";
  const auto s = run_starts(trace, "1x4", "conservative-backfill");
  CHECK(s.at("a") == 0);
  CHECK(s.at("b") == 50);
  CHECK(s.at("c") == 60);
}

TEST_CASE("conservative-backfill keeps a job's queue place when fragmentation blocks it",
          "[policies][conservative]") {
  // Two 2-GPU nodes, pack. a -> node 0 GPU 0 until 100; b -> node 1 until 50; c -> node 0
  // GPU 1 (best fit) until 60. d (1 GPU, 200 s) is reserved at 50 and starts there on node 1.
  // e (2 GPUs, 10 s) is counted into [60,70): two GPUs are free then, but one per node, so at
  // 60 the strategy finds no room. e keeps its place: reserved again from the next profile
  // change, 100 (a ends), and starts then on node 0. f (2 GPUs), reserved at [70,80) behind
  // e, is planned again after e: at 60 it meets the same fragmentation, from 100 it finds
  // only one GPU beside d and e, so it starts at 110.
  const char* trace =
      "id,submit_time,gpus,duration\n"
      "a,0,1,100\n"
      "b,0,2,50\n"
      "c,0,1,60\n"
      "d,1,1,200\n"
      "e,2,2,10\n"
      "f,3,2,10\n";
  const auto s = run_starts(trace, "2x2", "conservative-backfill");
  CHECK(s.at("a") == 0);
  CHECK(s.at("b") == 0);
  CHECK(s.at("c") == 0);
  CHECK(s.at("d") == 50);
  CHECK(s.at("e") == 100);
  CHECK(s.at("f") == 110);
}
