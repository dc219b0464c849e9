// attempts.csv: every attempt of every job, the stretch over which it held GPUs, and why it
// ended. jobs.csv keeps one row per job (first start, final end, last allocation); this log
// shows what preemptions and failures did in between.
//
// Contract: an attempt runs from a start to the next preemption, failure, completion or
// walltime kill of the job; rows are in trace order, then attempt number (from 1). The sum over
// rows of (end - start) x GPUs is summary.json's gpu_hours.busy (to its rounding).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedlab/observer.hpp"
#include "schedlab/placement.hpp"

namespace schedlab {

class AttemptLog : public Observer {
 public:
  void on_begin(const RunView& ctx) override;
  void on_job(const RunView& ctx, JobIndex job, JobTransition what) override;

  // attempts.csv: the columns of attempt_columns() (output_columns.hpp), one row per attempt in
  // trace order, then attempt number. After the run, while its Engine is alive.
  std::string csv() const;

 private:
  struct Attempt {
    JobIndex job = 0;
    std::uint32_t number = 0;
    TimeMs start_ms = 0;
    TimeMs end_ms = 0;
    JobTransition end = JobTransition::kCompleted;
    Placement placement;
  };
  const RunView* ctx_ = nullptr;
  std::vector<Attempt> attempts_;  // in the order they ended
};

}  // namespace schedlab
