// run_leaderboard: the suite's sweeps, one per track and trace, then the board from their
// results.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/leaderboard.hpp"
#include "schedlab/output.hpp"
#include "schedlab/sweep.hpp"

namespace schedlab {

namespace fs = std::filesystem;

LeaderboardOutcome run_leaderboard(const LeaderboardSuite& suite,
                                   const LeaderboardRunOptions& options) {
  // Every trace's inputs are read and checked before any cell runs.
  for (const auto& track : suite.tracks)
    for (const auto& trace : track.traces) load_sweep_inputs(trace.sweep);
  const OutputDirLock lock(options.out_dir);  // each sweep locks its own directory below
  LeaderboardOutcome outcome;
  std::vector<std::vector<std::vector<nlohmann::ordered_json>>> rows(suite.tracks.size());
  for (std::size_t k = 0; k < suite.tracks.size(); ++k) {
    const LeaderboardTrack& track = suite.tracks[k];
    for (std::size_t t = 0; t < track.traces.size(); ++t) {
      SweepRunOptions sweep;
      sweep.out_dir = (fs::path(options.out_dir) / "sweeps" / track.traces[t].sweep_dir).string();
      sweep.jobs = options.jobs;
      sweep.rerun = options.rerun;
      sweep.job_classes = leaderboard_class_kinds();
      if (options.progress)
        sweep.progress = [&options, k, t](const SweepProgress& p) { options.progress(k, t, p); };
      const SweepOutcome done = run_sweep(track.traces[t].sweep, sweep);
      outcome.cells += done.cells;
      outcome.ran += done.ran;
      outcome.resumed += done.resumed;
      outcome.failed += done.failed;
      if (done.first_failure && !outcome.first_failure) {
        outcome.first_failure = done.first_failure;
        outcome.failed_sweep_dir = sweep.out_dir;
      }
      rows[k].push_back(read_sweep_results((fs::path(sweep.out_dir) / "results.jsonl").string()));
    }
  }
  if (outcome.first_failure) return outcome;
  for (std::size_t k = 0; k < suite.tracks.size(); ++k)
    outcome.boards.push_back(compute_leaderboard(suite, k, rows[k]));
  const auto files = leaderboard_files(suite, outcome.boards, options.cards_href);
  // One set with its completion marker: never a board of mixed runs.
  std::vector<std::pair<std::string, std::string_view>> views(files.begin(), files.end());
  write_files_atomically(options.out_dir, views);
  return outcome;
}

}  // namespace schedlab
