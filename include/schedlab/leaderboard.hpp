// Leaderboards: policies ranked on a fixed suite of traces, each replayed on its own cluster,
// over replicates of the workload (docs/leaderboard.md).
//
// Contracts:
// - A suite runs as one sweep per trace into OUT/sweeps/NAME (run_sweep: resumable, parallel,
//   reproducible), each with the suite's policies, seeds and run options. Replicate r of every
//   policy on a trace replays the same workload (seed r), so policies are compared paired,
//   replicate by replicate.
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
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/metric_catalog.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/sweep.hpp"

namespace schedlab {

struct LeaderboardTrace {
  std::string name;   // short name, unique in the suite: headings and OUT/sweeps/NAME
  std::string shown;  // the trace and cluster as the suite file gives them, for headings
  SweepSpec sweep;    // this trace on its cluster, with every policy and replicate
};

struct LeaderboardMetric {
  std::string key;  // summary.json key, in the metric catalog
  const MetricInfo* info = nullptr;
  bool lower_is_better = true;
};

struct LeaderboardSuite {
  std::string source;  // the suite file, for messages and headings
  std::string name;
  std::string description;
  std::vector<LeaderboardTrace> traces;
  std::vector<std::string> policies;  // variant labels, in suite order (same for every trace)
  std::vector<std::uint64_t> seeds;   // the replicates
  std::string resample;               // the resampling method, as given ("none" when absent)
  std::vector<LeaderboardMetric> metrics;
};

// Parses a suite (format in docs/leaderboard.md). Relative paths (traces, cluster files, option
// files, Python policy files, plug-ins) are resolved against `base_dir`; plug-ins listed in
// "plugins" are loaded. Throws ConfigError "SOURCE: FIELD: problem" on unknown keys, wrong types,
// duplicate names, metrics without a direction, and several replicates that nothing varies.
LeaderboardSuite parse_leaderboard_suite(const nlohmann::ordered_json& json,
                                         const std::string& source, const std::string& base_dir);

// One policy's standing on one scope (a trace, or "overall") and metric.
struct Standing {
  std::size_t policy = 0;  // index into LeaderboardSuite::policies
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

struct Leaderboard {
  std::vector<Ranking> per_trace;  // trace-major, metrics in suite order
  std::vector<Ranking> overall;    // one per metric (mean rank over traces), then "score"
};

// The standings of a finished suite from its sweeps' results rows (`rows[trace]`, as
// read_sweep_results returns them). Throws ConfigError when a row is missing or failed.
Leaderboard compute_leaderboard(const LeaderboardSuite& suite,
                                const std::vector<std::vector<nlohmann::ordered_json>>& rows);

// The three outputs as (file name, content). With `cards_href` (a directory address ending in
// '/', relative to the output directory, e.g. "../../docs/policies/"), every policy cell of
// leaderboard.html links to the card of the policy its entry runs:
// cards_href + policy_card_file_name(policy) (a labelled variant such as "sjf-nonblocking" to
// sjf's card). leaderboard.md and leaderboard.csv do not depend on it.
std::vector<std::pair<std::string, std::string>> leaderboard_files(
    const LeaderboardSuite& suite, const Leaderboard& board, const std::string& cards_href = "");

struct LeaderboardRunOptions {
  std::string out_dir;
  unsigned jobs = 1;  // cells in parallel
  bool rerun = false;
  std::string cards_href;  // leaderboard_files' `cards_href`
  // Called per trace before its sweep runs (index into suite.traces) and as its cells finish.
  std::function<void(std::size_t trace, const SweepProgress&)> progress;
};

struct LeaderboardOutcome {
  std::size_t cells = 0, ran = 0, resumed = 0, failed = 0;
  std::exception_ptr first_failure;  // of the first failed cell (suite order)
  std::string failed_sweep_dir;      // where that cell's results are
  Leaderboard board;                 // empty when a cell failed
};

// Runs every trace's sweep, then (when no cell failed) writes leaderboard.md, leaderboard.csv
// and leaderboard.html into options.out_dir.
LeaderboardOutcome run_leaderboard(const LeaderboardSuite& suite,
                                   const LeaderboardRunOptions& options);

}  // namespace schedlab
