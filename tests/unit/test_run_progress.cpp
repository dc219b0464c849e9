// Progress reports and summary-only runs: watching a run or skipping its files never changes
// its summary.
#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/json_text.hpp"
#include "schedlab/random.hpp"
#include "schedlab/simulation.hpp"
#include "support/builders.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

std::string poisson_jobs(int jobs) {
  Rng rng(5);
  std::string csv = "id,submit_time,gpus,duration\n";
  double clock_s = 0;
  for (int i = 0; i < jobs; ++i) {
    clock_s += rng.exponential(30);
    csv += fmt::format("j{},{:.3f},{},{}\n", i, clock_s, 1 << rng.uniform_int(0, 3),
                       rng.uniform_int(60, 3000));
  }
  return csv;
}

}  // namespace

TEST_CASE("progress reports: monotone, and a last one with every job finished",
          "[metrics][progress]") {
  const Trace trace = trace_from_csv(poisson_jobs(3000));
  std::vector<RunProgress> reports;
  SimulationRequest watched;
  watched.policy = "easy-backfill";
  watched.reproducible = true;
  // A zero period reports at every 64th instant: the run is short.
  ProgressObserver observer([&reports](const RunProgress& p) { reports.push_back(p); },
                            std::chrono::milliseconds(0));
  const SimulationResult result =
      simulate(trace, parse_cluster_spec("4x8:V100"), watched, {&observer});
  REQUIRE(reports.size() > 10);
  for (std::size_t i = 1; i < reports.size(); ++i) {
    CHECK(reports[i].now_ms >= reports[i - 1].now_ms);
    CHECK(reports[i].jobs_finished >= reports[i - 1].jobs_finished);
    CHECK_FALSE(reports[i - 1].done);
  }
  const RunProgress& last = reports.back();
  CHECK(last.done);
  CHECK(last.jobs_total == 3000);
  CHECK(last.jobs_finished == 3000);
  CHECK(last.now_ms ==
        static_cast<TimeMs>(std::llround(result.summary["makespan_s"].get<double>() * 1000)) +
            trace.jobs.front().submit_ms);

  SimulationRequest plain = watched;
  plain.progress = {};
  CHECK(json_text(simulate(trace, parse_cluster_spec("4x8:V100"), plain).summary) ==
        json_text(result.summary));
}

TEST_CASE("progress line: simulated time, jobs, rate and ETA", "[metrics][progress]") {
  RunProgress p;
  p.now_ms = 40'539'600;
  p.jobs_total = 1'000'000;
  CHECK(format_run_progress(p) == "simulated 11.3 h, 0/1000000 jobs (0.0%)");
  p.jobs_finished = 250'000;
  p.wall_s = 10;
  CHECK(format_run_progress(p) ==
        "simulated 11.3 h, 250000/1000000 jobs (25.0%), 25000 jobs/s, ETA 30.0 s");
  p.jobs_finished = 1'000'000;
  p.done = true;
  CHECK(format_run_progress(p) == "simulated 11.3 h, 1000000/1000000 jobs (100.0%), 100000 jobs/s");
}

TEST_CASE("a run without files builds the same summary and no files", "[metrics][progress]") {
  const Trace trace = trace_from_csv(poisson_jobs(500));
  SimulationRequest with_files;
  with_files.policy = "las";
  with_files.reproducible = true;
  with_files.options.failure_rate_per_1000_node_days = 300;
  SimulationRequest summary_only = with_files;
  summary_only.files = false;
  const SimulationResult full = simulate(trace, parse_cluster_spec("2x8:V100"), with_files);
  const SimulationResult bare = simulate(trace, parse_cluster_spec("2x8:V100"), summary_only);
  CHECK(json_text(full.summary) == json_text(bare.summary));
  CHECK(full.timeseries_csv.size() > 1000);
  CHECK(bare.jobs_csv.empty());
  CHECK(bare.attempts_csv.empty());
  CHECK(bare.timeseries_csv.empty());
}
