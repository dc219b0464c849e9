// Progress of a long run for people watching it: how far the simulated clock and the finished
// jobs have come, sampled on the wall clock. Watching never changes a run's results.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "schedlab/observer.hpp"

namespace schedlab {

struct RunProgress {
  TimeMs now_ms = 0;              // simulated time
  std::size_t jobs_finished = 0;  // completed, rejected or stopped at their walltime
  std::size_t jobs_total = 0;     // jobs in the trace
  double wall_s = 0.0;            // since the run began
  bool done = false;              // the last report of the run
};

using RunProgressCallback = std::function<void(const RunProgress&)>;

// Calls `report` at most once per `period` of wall time while the run goes on, and once more
// when it ends (done = true). The clock is read every 64 instants, so a report costs nothing
// measurable per event.
class ProgressObserver : public Observer {
 public:
  explicit ProgressObserver(RunProgressCallback report,
                            std::chrono::milliseconds period = std::chrono::milliseconds(250));

  void on_begin(const RunView& ctx) override;
  void on_advance(const RunView& ctx, TimeMs from_ms, TimeMs to_ms) override;
  void on_job(const RunView& ctx, JobIndex job, JobTransition what) override;
  void on_end(const RunView& ctx) override;

 private:
  RunProgress sample(const RunView& ctx, std::chrono::steady_clock::time_point now) const;

  RunProgressCallback report_;
  std::chrono::steady_clock::duration period_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_report_;
  std::uint64_t advances_ = 0;
  std::size_t jobs_finished_ = 0;
};

// One line for a terminal: "simulated 12.3 d, 45000/1000000 jobs (4.5%), 12300 jobs/s,
// ETA 1.30 min"; the ETA extrapolates the finished-job rate so far and is left out until a job
// has finished.
std::string format_run_progress(const RunProgress& progress);

}  // namespace schedlab
