// Helpers shared by the policy tests: running a policy with access to the policy object,
// recording reservations, re-deriving lost work from the job transitions, random traces.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedlab/engine.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/policy_kit.hpp"
#include "schedlab/random.hpp"
#include "schedlab/simulation.hpp"
#include "support/builders.hpp"

namespace schedlab::testing {

// Runs with the invariant observer and returns starting_time (s) per job id.
std::map<std::string, double> run_starts(const std::string& csv, const std::string& cluster,
                                         const std::string& policy,
                                         const std::map<std::string, std::string>& params = {},
                                         RunOptions options = {});

// A column of jobs.csv keyed by job id.
std::map<std::string, std::string> column_by_id(const SimulationResult& result,
                                                const std::string& name);

// Records, after every schedule() call, the reservations a ReservationSource policy holds.
class ReservationRecorder : public Observer {
 public:
  explicit ReservationRecorder(const ReservationSource& source) : source_(source) {}
  void on_advance(const RunView& ctx, TimeMs from_ms, TimeMs to_ms) override;
  void on_end(const RunView& ctx) override;
  // [job] = every start time promised to it while it was queued.
  const std::map<JobIndex, std::vector<TimeMs>>& promised() const { return promised_; }

 private:
  const ReservationSource& source_;
  std::map<JobIndex, std::vector<TimeMs>> promised_;
};

// Re-derives, from the stream of job transitions alone, the work each job loses (GPU-ms):
// restart overhead spent plus progress past the last checkpoint at each preemption or failure.
class LostWorkOracle : public Observer {
 public:
  void on_job(const RunView& ctx, JobIndex job, JobTransition what) override;
  const std::vector<TimeMs>& lost_gpu_ms() const { return lost_gpu_ms_; }

 private:
  struct Track {
    TimeMs start_ms = 0;
    TimeMs overhead_ms = 0;
    TimeMs saved_ms = 0;  // work at the last checkpoint
    bool started_before = false;
  };
  std::vector<Track> tracks_;
  std::vector<TimeMs> lost_gpu_ms_;
};

// The result of a run through the Engine directly, keeping the policy object.
struct EngineRun {
  std::unique_ptr<Policy> policy;
  std::vector<JobState> states;
  EngineStats stats;
};
EngineRun run_engine(const Trace& trace, const std::string& cluster, const std::string& policy,
                     const std::map<std::string, std::string>& params, const RunOptions& options,
                     const std::vector<Observer*>& observers);

// Random native CSV for property tests. Columns: id, submit_time, gpus, duration, walltime
// (duration times a factor in [1, max_overestimate]), priority (0..priorities-1), preemptible.
struct RandomTraceSpec {
  int jobs = 40;
  int max_gpus = 8;
  double mean_interarrival_s = 20;
  double max_duration_s = 400;
  double max_overestimate = 1.0;
  int priorities = 1;
  double preemptible_share = 1.0;
  bool whole_nodes_of = false;  // gpus are multiples of `node_gpus`
  int node_gpus = 4;
};
std::string random_trace_csv(Rng& rng, const RandomTraceSpec& spec);

}  // namespace schedlab::testing
