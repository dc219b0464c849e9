// Leaderboards: policies ranked on a fixed suite of traces, each replayed on its own cluster,
// over replicates of the workload (docs/leaderboard.md).
//
// Contracts:
// - A suite holds one or more tracks; each track is ranked on its own (its traces, policies,
//   replicates and metrics), and everything below holds per track. A suite without "tracks"
//   is one unnamed track.
// - A track runs as one sweep per trace into OUT/sweeps/TRACE (OUT/sweeps/TRACK/TRACE in a
//   suite with "tracks"; run_sweep: resumable, parallel, reproducible), each with the track's
//   policies, seeds and run options, and with the GPU-count and duration classes of every job
//   (default bounds) in each cell's summary. Replicate r of every policy on a trace replays the
//   same workload (seed r), so policies are compared paired, replicate by replicate.
// - Per trace, metric, policy and job class: the metric over the class's jobs, averaged over
//   the replicates in which the class has jobs (none: no value; a metric without a class
//   breakdown: no value).
// - Per trace and ranking metric: the mean and 95% CI (Student t) over the replicates; ranks by
//   mean in the metric's direction, standard competition ranking ("1, 2, 2, 4"), where means
//   equal at 6 decimals share a rank; equal ranks list in suite order.
// - A difference between two policies is significant when the 95% CI of their paired
//   per-replicate differences (Student t) excludes 0; with fewer than 2 replicates nothing is
//   tested.
// - Overall: in each replicate, each policy's rank among the policies on every trace and
//   metric (tied values share the mean of their ranks); per metric, its mean over the traces;
//   the overall score, the mean of those over the metrics. These rank like lower-is-better
//   metrics, with CI and significance over the replicates.
// - The outputs (leaderboard.md, leaderboard.csv, leaderboard.html) are written as one output
//   set (write_files_atomically, with its completion marker) after every sweep finished, and
//   are byte-identical across runs of the same suite.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/job_classes.hpp"
#include "schedlab/metric_catalog.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/sweep.hpp"

namespace schedlab {

struct LeaderboardTrace {
  std::string name;       // short name, unique in its track: headings
  std::string sweep_dir;  // under OUT/sweeps: NAME, or TRACK/NAME in a suite with "tracks"
  std::string shown;      // the trace and cluster as the suite file gives them, for headings
  SweepSpec sweep;        // this trace on its cluster, with every policy and replicate
};

struct LeaderboardMetric {
  std::string key;  // summary.json key, in the metric catalog
  const MetricInfo* info = nullptr;
  bool lower_is_better = true;
};

struct LeaderboardTrack {
  std::string name;  // unique in the suite; "" for the one track of a suite without "tracks"
  std::string description;
  std::vector<LeaderboardTrace> traces;
  std::vector<std::string> policies;  // variant labels, in suite order (same for every trace)
  std::vector<std::uint64_t> seeds;   // the replicates
  std::string resample;               // the resampling method, as given ("none" when absent)
  std::vector<LeaderboardMetric> metrics;
};

struct LeaderboardSuite {
  std::string source;  // the suite file, for messages and headings
  std::string name;
  std::string description;
  bool has_tracks = false;  // the file declares "tracks" (then every track has a name)
  std::vector<LeaderboardTrack> tracks;
};

// Parses a suite (format in docs/leaderboard.md). Relative paths (traces, cluster files, option
// files, Python policy files, plug-ins) are resolved against `base_dir`; plug-ins listed in
// "plugins" are loaded. In a suite with "tracks", the top level's policies, seeds, options and
// metrics are the defaults of every track, each replaced as a whole by the track's own. Throws
// ConfigError "SOURCE: FIELD: problem" on unknown keys, wrong types, duplicate names, metrics
// without a direction, and several replicates that nothing varies.
LeaderboardSuite parse_leaderboard_suite(const nlohmann::ordered_json& json,
                                         const std::string& source, const std::string& base_dir);

// One policy's standing on one scope (a trace, or "overall") and metric.
struct Standing {
  std::size_t policy = 0;  // index into LeaderboardTrack::policies
  std::size_t rank = 0;    // 1 = best
  MeanCi value;            // over the replicates
  // Paired over the replicates against the first rank-1 policy (`best`), and against the
  // policy listed just above this one (`above`; none for the first).
  MeanCi vs_best, vs_above;
  bool tested = false;  // at least 2 replicates
  bool significant_vs_best = false, significant_vs_above = false;
};

struct Ranking {
  std::string scope;   // trace name or "overall"
  std::string metric;  // metric key, or "score" (overall only)
  bool lower_is_better = true;
  std::vector<Standing> standings;  // in rank order (ties in suite order)
  // better[a][b], policies in suite order: +1 when a is significantly better than b, -1 when
  // significantly worse, 0 when the difference is not significant (or not tested).
  std::vector<std::vector<int>> better;
};

// Ranks policies by the mean of their samples (`samples[policy][replicate]`, every policy with
// the same replicates) with the contract's ranks and paired tests.
Ranking rank_policies(const std::vector<std::vector<double>>& samples, bool lower_is_better);

// Ranks of `values` among themselves, 1 = best; tied values share the mean of their ranks.
std::vector<double> tie_averaged_ranks(const std::vector<double>& values, bool lower_is_better);

// Whether the 95% CI of the paired differences excludes 0 (false when n < 2).
bool significant_difference(const MeanCi& paired_difference);

// The job classes a board breaks its metrics down by: GPU count and duration, default bounds.
struct LeaderboardClass {
  JobClassKind kind = JobClassKind::kSize;
  std::string label;   // as summary.json's by_size / by_duration key it ("5-8", ">1d")
  std::string column;  // leaderboard.csv column: "size=5-8", "duration=>1d"
};
std::vector<LeaderboardClass> leaderboard_classes();
// The job classes a leaderboard's sweeps compute in every cell.
std::vector<JobClassKind> leaderboard_class_kinds();

// The standings of one track.
struct Leaderboard {
  std::vector<Ranking> per_trace;  // trace-major, metrics in suite order
  std::vector<Ranking> overall;    // one per metric (mean rank over traces), then "score"
  // class_means[k][policy][c]: per_trace[k]'s metric over the jobs of leaderboard_classes()[c]
  // (the contract's mean over replicates).
  std::vector<std::vector<std::vector<std::optional<double>>>> class_means;
};

// The standings of a finished track (suite.tracks[track]) from its sweeps' results rows
// (`rows[trace]`, as read_sweep_results returns them). Throws ConfigError when a row is missing
// or failed.
Leaderboard compute_leaderboard(const LeaderboardSuite& suite, std::size_t track,
                                const std::vector<std::vector<nlohmann::ordered_json>>& rows);

// The three outputs as (file name, content); `boards` parallel to suite.tracks. With
// `cards_href` (a directory address ending in '/', relative to the output directory, e.g.
// "../../docs/policies/"), every policy cell of leaderboard.html links to the card of the policy
// its entry runs: cards_href + policy_card_file_name(policy) (a labelled variant such as
// "sjf-nonblocking" to sjf's card). leaderboard.md and leaderboard.csv do not depend on it.
std::vector<std::pair<std::string, std::string>> leaderboard_files(
    const LeaderboardSuite& suite, const std::vector<Leaderboard>& boards,
    const std::string& cards_href = "");

struct LeaderboardRunOptions {
  std::string out_dir;
  unsigned jobs = 1;  // cells in parallel
  bool rerun = false;
  std::string cards_href;  // leaderboard_files' `cards_href`
  // Called per trace before its sweep runs (indices into suite.tracks and the track's traces)
  // and as its cells finish.
  std::function<void(std::size_t track, std::size_t trace, const SweepProgress&)> progress;
};

struct LeaderboardOutcome {
  std::size_t cells = 0, ran = 0, resumed = 0, failed = 0;
  std::exception_ptr first_failure;  // of the first failed cell (suite order)
  std::string failed_sweep_dir;      // where that cell's results are
  std::vector<Leaderboard> boards;   // one per track; empty when a cell failed
};

// Runs every track's sweeps, then (when no cell failed) writes leaderboard.md, leaderboard.csv
// and leaderboard.html into options.out_dir.
LeaderboardOutcome run_leaderboard(const LeaderboardSuite& suite,
                                   const LeaderboardRunOptions& options);

}  // namespace schedlab
