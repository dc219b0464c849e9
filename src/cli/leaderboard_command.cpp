// schedlab leaderboard: runs a suite (one sweep per trace) and writes the ranked board:
// leaderboard.md, leaderboard.csv and leaderboard.html (docs/leaderboard.md).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/error.hpp"
#include "schedlab/leaderboard.hpp"
#include "schedlab/output.hpp"
#include "schedlab/printable.hpp"
#include "sweep_logging.hpp"

namespace schedlab::cli {

namespace {

using Json = nlohmann::ordered_json;

struct LeaderboardArgs {
  std::string suite_file;
  std::string out_dir;
  unsigned jobs = 0;
  bool rerun = false;
  bool quiet = false;
  std::string cards_dir = "docs/policies";
};

// The address of `cards_dir` as seen from `out_dir` (both relative to the working directory or
// absolute), ending in '/': "../../docs/policies/" for -o build/leaderboard.
std::string cards_href(const std::string& out_dir, const std::string& cards_dir) {
  namespace fs = std::filesystem;
  const fs::path from = fs::absolute(out_dir).lexically_normal();
  const fs::path to = fs::absolute(cards_dir).lexically_normal();
  std::string href = to.lexically_relative(from).generic_string();
  if (href.empty()) href = to.generic_string();
  if (!href.ends_with('/')) href += '/';
  return href;
}

LeaderboardSuite read_suite(const std::string& path) {
  const SpecFile file = read_spec_file(path);
  return parse_leaderboard_suite(file.json, path, file.base_dir);
}

// The overall standings of each track as the terminal shows them.
std::string overall_text(const LeaderboardSuite& suite, const std::vector<Leaderboard>& boards) {
  std::string out;
  for (std::size_t k = 0; k < suite.tracks.size(); ++k) {
    const LeaderboardTrack& track = suite.tracks[k];
    const Ranking& score = boards[k].overall.back();
    if (suite.has_tracks) out += fmt::format("track {}\n", track.name);
    std::size_t width = 6;
    for (const auto& name : track.policies) width = std::max(width, name.size());
    out += fmt::format("{:>4}  {:<{}}  {}\n", "rank", "policy", width, "score");
    for (const auto& s : score.standings) {
      std::string value = fixed(s.value.mean, 2);
      if (s.value.n >= 2) value += " ± " + fixed(s.value.ci95, 2);
      out += fmt::format("{:>4}  {:<{}}  {}\n", s.rank, track.policies[s.policy], width, value);
    }
  }
  return out;
}

}  // namespace

Action add_leaderboard_command(CLI::App& app) {
  auto a = std::make_shared<LeaderboardArgs>();
  CLI::App* cmd = app.add_subcommand(
      "leaderboard",
      "rank policies on a suite of traces over replicates: leaderboard.md, .csv and .html");
  cmd->add_option("suite", a->suite_file, "suite JSON (docs/leaderboard.md)")->required();
  cmd->add_option("-o,--out", a->out_dir, "output directory")
      ->required()
      ->check(non_empty_output_path());
  cmd->add_option("-j,--jobs", a->jobs, "cells in parallel (default: one per core)");
  cmd->add_flag("--rerun", a->rerun, "ignore finished cells of an earlier run");
  cmd->add_flag("-q,--quiet", a->quiet, "no progress on stderr");
  cmd->add_option("--cards", a->cards_dir,
                  "directory of the policy cards leaderboard.html links each policy to "
                  "(default docs/policies; schedlab policies --write-cards makes them)");
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    const LeaderboardSuite suite = read_suite(a->suite_file);
    LeaderboardRunOptions options;
    options.out_dir = a->out_dir;
    options.jobs = a->jobs > 0 ? a->jobs : std::max(1U, std::thread::hardware_concurrency());
    options.rerun = a->rerun;
    options.cards_href = cards_href(a->out_dir, a->cards_dir);
    std::mutex mutex;
    if (!a->quiet)
      options.progress = [&suite, &mutex](std::size_t track, std::size_t trace,
                                          const SweepProgress& p) {
        const std::lock_guard lock(mutex);
        const std::string& name = suite.tracks[track].traces[trace].sweep_dir;
        if (p.label.empty())
          std::fprintf(stderr, "leaderboard: %s: %zu cells (%zu already done)\n",
                       printable_text(name).c_str(), p.total, p.resumed);
        else
          std::fprintf(stderr, "leaderboard: %s: [%zu/%zu] %s: %s (%.2f s)\n",
                       printable_text(name).c_str(), p.done, p.total, p.ok ? "done" : "FAILED",
                       printable_text(p.label).c_str(), p.wall_s);
        std::fflush(stderr);
      };
    const auto started = std::chrono::steady_clock::now();
    LeaderboardOutcome outcome;
    {
      const SweepLogging logging;
      outcome = run_leaderboard(suite, options);
    }
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - started;
    if (outcome.first_failure)
      rethrow_with_context(
          outcome.first_failure,
          fmt::format("leaderboard: {} of {} cells failed, no board written (see {}/results.csv)",
                      outcome.failed, outcome.cells, outcome.failed_sweep_dir));
    const std::string table = overall_text(suite, outcome.boards);
    std::fwrite(table.data(), 1, table.size(), stdout);
    std::printf(
        "leaderboard: %zu cells (%zu run, %zu resumed) in %.2f s with %u worker%s; board in "
        "%s/leaderboard.md\n",
        outcome.cells, outcome.ran, outcome.resumed, wall.count(), options.jobs,
        options.jobs == 1 ? "" : "s", a->out_dir.c_str());
    return kExitOk;
  };
}

}  // namespace schedlab::cli
