// easy-backfill against an independent count-based EASY (Lifka 1995; Mu'alem and Feitelson
// 2001) on interchangeable GPUs (one node): start times must agree job by job.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "policies/policy_support.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Count-based EASY on `total` interchangeable GPUs, written from the papers' definition and
// nothing of the simulator: FIFO while the head fits; otherwise the head's shadow time is the
// earliest walltime-based end at which enough GPUs are free, the extra GPUs are those free then
// beyond the head's need, and a later job starts now if it fits the free GPUs and either ends
// by the shadow time or takes no more than the extra GPUs (which it then uses up). Jobs end at
// start + min(duration, walltime); ends at an instant are applied before its arrivals; the
// scheduler runs once per instant. Returns each job's start (ms).
std::vector<TimeMs> count_based_easy(const Trace& trace, int total) {
  const std::size_t n = trace.jobs.size();
  std::vector<JobIndex> by_submit(n);
  for (JobIndex j = 0; j < n; ++j) by_submit[j] = j;
  std::stable_sort(by_submit.begin(), by_submit.end(), [&](JobIndex a, JobIndex b) {
    return trace.jobs[a].submit_ms < trace.jobs[b].submit_ms;
  });
  auto walltime_of = [&](JobIndex j) {  // the trace's, else the exact estimate
    const JobSpec& spec = trace.jobs[j];
    return spec.walltime_ms != kUnsetMs ? spec.walltime_ms : spec.duration_ms;
  };
  auto end_of = [&](JobIndex j, TimeMs start_ms) {
    return start_ms + std::min(trace.jobs[j].duration_ms, walltime_of(j));
  };
  std::vector<TimeMs> start(n, -1);
  std::vector<JobIndex> queue;    // submit order
  std::vector<JobIndex> running;  // any order
  int free = total;
  std::size_t next = 0;
  std::size_t finished = 0;
  while (finished < n) {
    TimeMs now = kNever;
    if (next < n) now = trace.jobs[by_submit[next]].submit_ms;
    for (JobIndex j : running) now = std::min(now, end_of(j, start[j]));
    REQUIRE(now != kNever);
    for (auto it = running.begin(); it != running.end();) {
      if (end_of(*it, start[*it]) == now) {
        free += trace.jobs[*it].gpus;
        ++finished;
        it = running.erase(it);
      } else {
        ++it;
      }
    }
    while (next < n && trace.jobs[by_submit[next]].submit_ms == now)
      queue.push_back(by_submit[next++]);
    auto run = [&](JobIndex j) {
      start[j] = now;
      free -= trace.jobs[j].gpus;
      running.push_back(j);
    };
    while (!queue.empty() && trace.jobs[queue.front()].gpus <= free) {
      run(queue.front());
      queue.erase(queue.begin());
    }
    if (queue.empty()) continue;
    const int head_gpus = trace.jobs[queue.front()].gpus;
    std::vector<TimeMs> ends;
    for (JobIndex j : running) ends.push_back(start[j] + walltime_of(j));
    std::sort(ends.begin(), ends.end());
    TimeMs shadow_ms = kNever;
    for (TimeMs candidate : ends) {
      int free_then = free;
      for (JobIndex j : running)
        if (start[j] + walltime_of(j) <= candidate) free_then += trace.jobs[j].gpus;
      if (free_then >= head_gpus) {
        shadow_ms = std::max(candidate, now);
        break;
      }
    }
    REQUIRE(shadow_ms != kNever);
    int extra = free - head_gpus;
    for (JobIndex j : running)
      if (start[j] + walltime_of(j) <= shadow_ms) extra += trace.jobs[j].gpus;
    for (auto it = queue.begin() + 1; it != queue.end();) {
      const JobIndex j = *it;
      const int gpus = trace.jobs[j].gpus;
      const bool fits = gpus <= free;
      const bool ends_by_shadow = now + walltime_of(j) <= shadow_ms;
      if (fits && (ends_by_shadow || gpus <= extra)) {
        if (!ends_by_shadow) extra -= gpus;
        run(j);
        it = queue.erase(it);
      } else {
        ++it;
      }
    }
  }
  return start;
}

void check_against_reference(const std::string& csv, int node_gpus) {
  const Trace trace = trace_from_csv(csv);
  const auto run =
      run_engine(trace, fmt::format("1x{}:V100", node_gpus), "easy-backfill", {}, RunOptions{}, {});
  const std::vector<TimeMs> expected = count_based_easy(trace, node_gpus);
  for (JobIndex j = 0; j < trace.jobs.size(); ++j) {
    INFO("job " << trace.jobs[j].id << "\n" << csv);
    REQUIRE(run.states[j].first_start_ms == expected[j]);
  }
}

}  // namespace

TEST_CASE("easy-backfill backfills as count-based EASY on one node: the issue's example",
          "[policies][easy][reference]") {
  // One 4-GPU node. a (2 GPUs, 50 s) and b (2 GPUs, 1,000 s) at 0; h (3 GPUs) at 60 waits for
  // b: shadow 1,000, when 4 GPUs are free, one beyond h's 3. d (1 GPU, 5,000 s) at 61 runs past
  // the shadow time but takes only that one extra GPU: it starts at 61. The reservation takes
  // b's GPUs (released by 1,000) before the two a left free, so one of those stays outside it.
  const char* csv =
      "id,submit_time,gpus,duration\n"
      "a,0,2,50\n"
      "b,0,2,1000\n"
      "h,60,3,10\n"
      "d,61,1,5000\n";
  const auto s = run_starts(csv, "1x4", "easy-backfill");
  CHECK(s.at("d") == 61);
  CHECK(s.at("h") == 1000);
  check_against_reference(csv, 4);
}

TEST_CASE("easy-backfill equals count-based EASY on one node for random traces",
          "[policies][easy][reference]") {
  Rng rng(20261204);
  for (int round = 0; round < 400; ++round) {
    RandomTraceSpec spec;
    const int node_gpus = std::vector<int>{4, 8, 16, 64}[static_cast<std::size_t>(round % 4)];
    spec.jobs = 30 + round % 50;
    spec.max_gpus = node_gpus;
    spec.mean_interarrival_s = 5 + round % 40;
    spec.max_duration_s = 600;
    // Half exact estimates, half over-estimates up to 4x (jobs end before their walltime).
    spec.max_overestimate = round % 2 == 0 ? 1.0 : 4.0;
    check_against_reference(random_trace_csv(rng, spec), node_gpus);
  }
}
