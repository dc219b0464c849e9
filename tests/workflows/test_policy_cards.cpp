// Policy cards (docs/policies.md, "Policy cards"): one card checked exactly, the committed cards
// of docs/policies/ kept current, unknown names and boards refused with one line, board labels
// matched to policies, a plug-in's card saying what it does not state, and leaderboard.html
// linking every policy to its card.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedlab/board_standing.hpp"
#include "schedlab/policy_card.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

const std::string kBin = SCHEDLAB_BINARY;

std::string committed_board() {
  return (fs::path(source_dir()) / "docs/leaderboard.md").string();
}

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("the sjf card states its registration and the committed board exactly",
          "[policy-cards]") {
  const CommandResult card =
      run_command(fmt::format("{} policies --card sjf --leaderboard {}", shell_quote(kBin),
                              shell_quote(committed_board())));
  INFO(card.err);
  REQUIRE(card.exit_code == 0);
  CHECK(card.err.empty());
  CHECK(card.out ==
        "# Policy card: sjf\n"
        "\n"
        "shortest walltime first (ties: submit time, trace order); non-preemptive\n"
        "\n"
        "Origin: built-in. Generated from its registration by `schedlab policies --card sjf` "
        "(docs/policies.md, \"Policy cards\").\n"
        "\n"
        "## Algorithm\n"
        "\n"
        "Queued jobs in order of walltime (the estimate, never the true duration; shorter "
        "first), then submit time, then trace order; the first job that does not fit blocks "
        "later ones (blocking=false: they may start past it).\n"
        "\n"
        "## Parameters\n"
        "\n"
        "| parameter | default | unit | description |\n"
        "|---|---|---|---|\n"
        "| `blocking` | `true` | boolean | true: the first job that does not fit blocks later "
        "ones; false: later jobs may start |\n"
        "\n"
        "## Citation\n"
        "\n"
        "W. E. Smith, \"Various optimizers for single-stage production\", Naval Research "
        "Logistics Quarterly 3(1-2), 1956 (shortest processing time first)\n"
        "\n"
        "## What it needs\n"
        "\n"
        "| input or behaviour | |\n"
        "|---|---|\n"
        "| walltimes (the trace's, else the `--estimate` rule) | yes |\n"
        "| tenants (schedules by tenant) | no |\n"
        "| job priorities | no |\n"
        "| preempts running jobs (default parameters) | no |\n"
        "\n"
        "## Contract check\n"
        "\n"
        "`schedlab check-policy --policy sjf --never-preempts`:\n"
        "\n"
        "```\n"
        "sjf: contract kept in 50 runs (each made twice)\n"
        "```\n"
        "\n"
        "## Standing\n"
        "\n"
        "Overall standings on \"Leaderboard: schedlab default suite\", track training, as the "
        "board states them: in each replicate a policy's rank among the 7 entries on every trace, "
        "averaged over the traces per metric; the score averages those over the metrics (lower "
        "is better; \"≈\": not significantly different from rank 1).\n"
        "\n"
        "| rank | policy | score | mean wait (mean rank) | mean time queued (mean rank) | mean "
        "job completion time (mean rank) | mean bounded slowdown (mean rank) | 95th percentile "
        "wait (mean rank) | 99th percentile job completion time (mean rank) |\n"
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"
        "| 3 | sjf-nonblocking | 3.28 ± 0.06 (3) | 3.25 ± 0.00 (3) | 2.46 ± 0.12 (3) | 2.46 ± "
        "0.12 (3) | 3.54 ± 0.11 (3) | 3.94 ± 0.15 (3) | 4.04 ± 0.14 (4) |\n"
        "| 4 | sjf | 4.06 ± 0.07 (4) | 4.25 ± 0.04 (4) | 3.58 ± 0.09 (4) | 3.56 ± 0.09 (4) | "
        "3.88 ± 0.13 (4) | 4.85 ± 0.29 (5) | 4.26 ± 0.13 (5) |\n");

  // Without a board and without the check, the card says so.
  const CommandResult bare =
      run_command(fmt::format("{} policies --card SJF --no-contract-check", shell_quote(kBin)));
  REQUIRE(bare.exit_code == 0);
  CHECK(bare.out.find("`schedlab check-policy --policy sjf --never-preempts`: not run for this "
                      "card.\n") != std::string::npos);
  CHECK(
      bare.out.ends_with("## Standing\n\nNo leaderboard given (`schedlab policies --card NAME "
                         "--leaderboard PATH`).\n"));
}

TEST_CASE("the committed policy cards are current", "[policy-cards]") {
  const std::string dir = fresh_temp_dir("policy-cards");
  const CommandResult made =
      run_command(fmt::format("{} policies --write-cards {} --leaderboard {}", shell_quote(kBin),
                              shell_quote(dir), shell_quote(committed_board())));
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  std::set<std::string> fresh;
  std::set<std::string> committed;
  for (const auto& entry : fs::directory_iterator(dir)) fresh.insert(entry.path().filename());
  for (const auto& entry : fs::directory_iterator(fs::path(source_dir()) / "docs/policies"))
    committed.insert(entry.path().filename());
  INFO(
      "refresh: build/schedlab policies --write-cards docs/policies --leaderboard "
      "docs/leaderboard.md");
  CHECK(committed == fresh);
  CHECK(fresh.count("easy-backfill.md") == 1);
  for (const std::string& name : fresh) {
    INFO(name);
    CHECK(read_text(dir + "/" + name) ==
          read_text((fs::path(source_dir()) / "docs/policies" / name).string()));
  }
}

TEST_CASE("an unknown policy or board is refused with one line", "[policy-cards]") {
  const CommandResult unknown =
      run_command(fmt::format("{} policies --card no-such-policy", shell_quote(kBin)));
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.out.empty());
  CHECK(unknown.err == "--card no-such-policy: no such policy (schedlab policies lists them)\n");

  const std::string dir = fresh_temp_dir("policy-cards-board");
  std::ofstream(dir + "/notes.md") << "# Notes\n\n## Overall\n\nNo table here.\n";
  const CommandResult no_board =
      run_command(fmt::format("{} policies --card fifo --leaderboard {}", shell_quote(kBin),
                              shell_quote(dir + "/notes.md")));
  CHECK(no_board.exit_code == 2);
  CHECK(line_count(no_board.err) == 1);
  CHECK(no_board.err.starts_with("--leaderboard " + dir + "/notes.md: holds no leaderboard"));
  const CommandResult missing = run_command(fmt::format(
      "{} policies --card fifo --leaderboard {}", shell_quote(kBin), shell_quote(dir + "/none")));
  CHECK(missing.exit_code == 2);
  CHECK(line_count(missing.err) == 1);
  const CommandResult alone =
      run_command(fmt::format("{} policies --no-contract-check", shell_quote(kBin)));
  CHECK(alone.exit_code == 2);
  CHECK(line_count(alone.err) == 1);
}

TEST_CASE("board labels stand for the longest registered name they start with", "[policy-cards]") {
  const std::vector<std::string> names = {"fair", "fair-share", "las", "sjf"};
  CHECK(board_label_policy("sjf", names) == "sjf");
  CHECK(board_label_policy("sjf-nonblocking", names) == "sjf");
  CHECK(board_label_policy("sjf(blocking=false)", names) == "sjf");
  CHECK(board_label_policy("fair-share", names) == "fair-share");
  CHECK(board_label_policy("fair-share-slow", names) == "fair-share");
  CHECK(board_label_policy("fair-x", names) == "fair");
  CHECK(board_label_policy("sjfx", names).empty());
  CHECK(board_label_policy("lasagne", names).empty());
  CHECK(policy_card_file_name("py:examples/python/fifo.py:Fifo") ==
        "py_examples_python_fifo.py_Fifo.md");
}

TEST_CASE("a plug-in's card says what its registration does not state", "[policy-cards]") {
  const CommandResult card =
      run_command(fmt::format("{} policies --plugin {} --card smallest-first", shell_quote(kBin),
                              shell_quote(SCHEDLAB_PLUGIN_SMALLEST_FIRST)));
  INFO(card.err);
  REQUIRE(card.exit_code == 0);
  CHECK(card.out.find(fmt::format("Origin: plug-in {}.", SCHEDLAB_PLUGIN_SMALLEST_FIRST)) !=
        std::string::npos);
  CHECK(card.out.find("## Algorithm\n\nnot stated\n") != std::string::npos);
  CHECK(card.out.find("## Citation\n\nnot stated\n") != std::string::npos);
  CHECK(card.out.find("| `blocking` | `true` | boolean |") != std::string::npos);
  CHECK(card.out.find("| job priorities | not stated |") != std::string::npos);
  // Not stated not to preempt: the check does not require it.
  CHECK(card.out.find("`schedlab check-policy --policy smallest-first`:\n\n```\nsmallest-first: "
                      "contract kept in") != std::string::npos);
}

TEST_CASE("leaderboard.html links every policy to its card", "[policy-cards]") {
  const std::string dir = fresh_temp_dir("policy-cards-html");
  nlohmann::ordered_json json = {
      {"name", "small"},
      {"traces", {{{"name", "a"}, {"path", write_small_trace(dir)}, {"cluster", "2x8:V100"}}}},
      {"policies",
       {"fifo", {{"name", "sjf"}, {"params", {{"blocking", false}}}, {"label", "sjf-nb"}}}},
      {"seeds", {"1-2"}},
      {"options", {{"resample", "jitter:0.3"}}},
      {"metrics", {"wait_s.mean"}}};
  std::ofstream(dir + "/suite.json") << json.dump(2);
  const CommandResult done =
      run_command(fmt::format("cd {} && {} leaderboard suite.json -o out/board -q --cards cards",
                              shell_quote(dir), shell_quote(kBin)));
  INFO(done.err);
  REQUIRE(done.exit_code == 0);
  const std::string html = read_text(dir + "/out/board/leaderboard.html");
  // Two tables (overall, trace a) of two rows each.
  std::size_t links = 0;
  for (std::size_t at = html.find("<a href="); at != std::string::npos;
       at = html.find("<a href=", at + 1))
    ++links;
  CHECK(links == 4);
  CHECK(html.find("<td><a href=\"../../cards/sjf.md\">sjf-nb</a></td>") != std::string::npos);
  CHECK(html.find("<td><a href=\"../../cards/fifo.md\">fifo</a></td>") != std::string::npos);
  CHECK(read_text(dir + "/out/board/leaderboard.md").find("<a ") == std::string::npos);
}
