// Leaderboards: ranks, intervals and paired tests checked by hand; suite errors; a small suite
// run end to end (values equal the sweeps' results, resumable, byte-identical, plug-in
// policies); and the committed board of the default suite still reproduces.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/leaderboard.hpp"
#include "schedlab/output.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

std::string suite_error_of(const Json& json) {
  try {
    parse_leaderboard_suite(json, "suite.json", source_dir());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

Json small_suite(const std::string& trace) {
  return Json{
      {"name", "small"},
      {"traces",
       Json::array(
           {Json{{"name", "a"}, {"path", trace}, {"cluster", "2x8:V100"}},
            Json{{"name", "b"}, {"path", trace}, {"cluster", "3x8:V100"}, {"load_scale", 2}}})},
      {"policies", Json::array({"fifo", "sjf", "las"})},
      {"seeds", Json::array({"1-3"})},
      {"options", Json{{"resample", "jitter:0.3"}}},
      {"metrics", Json::array({"wait_s.mean", "utilization"})}};
}

// The rows of leaderboard.csv keyed by "scope metric policy" ("track scope metric policy" in a
// suite with tracks), as column -> value.
std::map<std::string, std::map<std::string, std::string>> board_rows(const std::string& csv) {
  std::map<std::string, std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  std::size_t start = 0;
  while (start < csv.size()) {
    const std::size_t end = csv.find('\n', start);
    const std::string line = csv.substr(start, end - start);
    start = end + 1;
    std::vector<std::string> fields;
    std::size_t from = 0;
    while (true) {
      const std::size_t comma = line.find(',', from);
      fields.push_back(line.substr(from, comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    if (header.empty()) {
      header = fields;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = fields.at(i);
    const std::string track = row.count("track") != 0 ? row["track"] + " " : "";
    rows[track + row["scope"] + " " + row["metric"] + " " + row["policy"]] = row;
  }
  return rows;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The part of `doc` between the leaderboard markers.
std::string embedded_board(const std::string& doc) {
  const std::string begin = "<!-- leaderboard:begin -->\n";
  const std::string end = "<!-- leaderboard:end -->\n";
  const std::size_t from = doc.find(begin);
  const std::size_t to = doc.find(end);
  if (from == std::string::npos || to == std::string::npos || to < from) return "(no markers)";
  return doc.substr(from + begin.size(), to - from - begin.size());
}

}  // namespace

TEST_CASE("tie-averaged ranks share the mean of their places", "[leaderboard]") {
  CHECK(tie_averaged_ranks({3, 1, 3, 2}, true) == std::vector<double>{3.5, 1, 3.5, 2});
  CHECK(tie_averaged_ranks({3, 1, 3, 2}, false) == std::vector<double>{1.5, 4, 1.5, 3});
  CHECK(tie_averaged_ranks({5, 5, 5}, true) == std::vector<double>{2, 2, 2});
}

TEST_CASE("ranks, intervals and paired tests match a hand computation", "[leaderboard]") {
  // E - A = {1, 0, 2, 1}: mean 1, sd sqrt(2/3), half-width t(3) * sd / 2 = 1.2992 > 1.
  // F - A = {1, 1, 2, 1}: mean 1.25, sd 0.5, half-width 3.18245 * 0.25 = 0.7956 < 1.25.
  const std::vector<std::vector<double>> samples = {
      {1, 2, 3, 4},  // A
      {2, 2, 5, 5},  // E
      {2, 3, 5, 5},  // F
      {1, 2, 3, 4},  // G, equal to A
  };
  const Ranking lower = rank_policies(samples, true);
  REQUIRE(lower.standings.size() == 4);
  // A and G tie at 2.5 (listed in suite order), E at 3.5, F at 3.75.
  CHECK(lower.standings[0].policy == 0);
  CHECK(lower.standings[1].policy == 3);
  CHECK(lower.standings[2].policy == 1);
  CHECK(lower.standings[3].policy == 2);
  CHECK(lower.standings[0].rank == 1);
  CHECK(lower.standings[1].rank == 1);
  CHECK(lower.standings[2].rank == 3);
  CHECK(lower.standings[3].rank == 4);
  CHECK(lower.standings[0].value.mean == Approx(2.5));
  // A: sd of {1,2,3,4} = 1.29099, half-width 3.18245 * 1.29099 / 2 = 2.05426.
  CHECK(lower.standings[0].value.ci95 == Approx(2.05426).epsilon(1e-5));
  const Standing& e = lower.standings[2];
  CHECK(e.vs_best.mean == Approx(1.0));
  CHECK(e.vs_best.ci95 == Approx(1.29925).epsilon(1e-4));
  CHECK_FALSE(e.significant_vs_best);
  const Standing& f = lower.standings[3];
  CHECK(f.vs_best.mean == Approx(1.25));
  CHECK(f.vs_best.ci95 == Approx(0.795613).epsilon(1e-4));
  CHECK(f.significant_vs_best);
  // F - E = {0, 1, 0, 0}: mean 0.25, half-width 3.18245 * 0.5 / 2 = 0.7956: not significant.
  CHECK(f.vs_above.mean == Approx(0.25));
  CHECK_FALSE(f.significant_vs_above);
  CHECK_FALSE(lower.standings[1].significant_vs_best);  // G equals A: no difference at all
  CHECK(lower.better[0][2] == 1);
  CHECK(lower.better[2][0] == -1);
  CHECK(lower.better[0][1] == 0);
  CHECK(lower.better[0][3] == 0);

  // Higher is better reverses the order and the signs.
  const Ranking higher = rank_policies(samples, false);
  CHECK(higher.standings[0].policy == 2);
  CHECK(higher.standings[0].rank == 1);
  CHECK(higher.standings[3].rank == 3);
  CHECK(higher.better[2][0] == 1);

  // A constant gap is significant; one replicate tests nothing.
  const Ranking constant = rank_policies({{1, 5, 9}, {2, 6, 10}}, true);
  CHECK(constant.standings[1].significant_vs_best);
  CHECK(constant.standings[1].vs_best.ci95 == 0.0);
  const Ranking single = rank_policies({{1}, {2}}, true);
  CHECK_FALSE(single.standings[1].tested);
  CHECK_FALSE(single.standings[1].significant_vs_best);
  CHECK(replicate_count_note(1).starts_with("One replicate: too few"));
  CHECK(replicate_count_note(3) ==
        "Only 3 replicates: the 95% intervals use Student's t with 2 degrees of freedom "
        "(t = 4.30) and are wide; 5 or more replicates narrow them.");
  CHECK(replicate_count_note(5).empty());
}

TEST_CASE("suite errors name the file, the field and the value", "[leaderboard]") {
  const std::string trace = (fs::path(source_dir()) / "traces/itp-cluster10.csv").string();
  Json suite = small_suite(trace);
  CHECK(suite_error_of(suite) == "(no error)");

  Json unknown = suite;
  unknown["replicates"] = 3;
  CHECK(suite_error_of(unknown) ==
        "suite.json: replicates: unknown key (known: description, metrics, name, options, "
        "plugins, policies, seeds, traces, tracks)");
  Json no_cluster = suite;
  no_cluster["traces"][1].erase("cluster");
  CHECK(suite_error_of(no_cluster) ==
        "suite.json: traces[1].cluster: missing (a cluster spec, as for run --cluster)");
  Json twice = suite;
  twice["traces"][1]["name"] = "a";
  CHECK(suite_error_of(twice) ==
        "suite.json: traces[1].name: 'a' names two traces (a name must be unique)");
  Json bad_name = suite;
  bad_name["traces"][0]["name"] = "a/b";
  CHECK(suite_error_of(bad_name) ==
        "suite.json: traces[0].name: 'a/b' is not a usable name (letters, digits, '.', '_', '-')");
  Json no_direction = suite;
  no_direction["metrics"] = Json::array({"wait_s.mean", "jobs.submitted"});
  CHECK(suite_error_of(no_direction)
            .starts_with("suite.json: metrics[1]: 'jobs.submitted' cannot rank policies: it is "));
  Json unknown_metric = suite;
  unknown_metric["metrics"] = Json::array({"wait_s.avg"});
  CHECK(suite_error_of(unknown_metric) ==
        "suite.json: metrics[0]: 'wait_s.avg' is not a metric of summary.json (docs/metrics.md)");
  Json identical = suite;
  identical["options"].erase("resample");
  CHECK(suite_error_of(identical) ==
        "suite.json: seeds: 3 replicates, but nothing varies between them: every seed replays "
        "the same workload; set options.resample (e.g. \"bootstrap\", docs/leaderboard.md) or "
        "give one seed");
  Json bad_policy = suite;
  bad_policy["policies"][1] = "sjff";
  CHECK(suite_error_of(bad_policy).starts_with("suite.json: policies[1]: "));
  Json no_policies = suite;
  no_policies["policies"] = Json::array();
  CHECK(suite_error_of(no_policies) ==
        "suite.json: policies: expected a non-empty list of policies");
}

TEST_CASE("a suite runs as sweeps and its board restates their results", "[leaderboard]") {
  const std::string dir = fresh_temp_dir("leaderboard");
  const std::string trace = write_small_trace(dir);
  Json json = small_suite(trace);
  json["policies"].push_back("easy-backfill");  // one line adds a policy
  const LeaderboardSuite suite = parse_leaderboard_suite(json, "suite.json", dir);
  REQUIRE(suite.tracks.size() == 1);
  REQUIRE(suite.tracks[0].policies ==
          std::vector<std::string>{"fifo", "sjf", "las", "easy-backfill"});

  LeaderboardRunOptions options;
  options.out_dir = dir + "/out";
  options.jobs = 2;
  const LeaderboardOutcome first = run_leaderboard(suite, options);
  REQUIRE_FALSE(first.first_failure);
  CHECK(first.cells == 2 * 4 * 3);
  CHECK(first.ran == 24);
  REQUIRE(first.boards.size() == 1);
  const std::string md = read_text(dir + "/out/leaderboard.md");
  const std::string csv = read_text(dir + "/out/leaderboard.csv");
  const std::string html = read_text(dir + "/out/leaderboard.html");
  CHECK(md.find("| rank | policy | score |") != std::string::npos);
  CHECK(md.find("Only 3 replicates") != std::string::npos);
  CHECK(html.find("<table>") != std::string::npos);
  CHECK(html.find("<svg") != std::string::npos);  // the score chart

  // Each board value is the mean over the replicates of the sweep's own results.
  const auto rows = board_rows(csv);
  CHECK(rows.size() == (2 * 2 + 2 + 1) * 4);  // traces x metrics, overall metrics, score
  for (const std::string trace_name : {"a", "b"}) {
    const auto results = read_sweep_results(dir + "/out/sweeps/" + trace_name + "/results.jsonl");
    REQUIRE(results.size() == 12);
    for (const std::string policy : {"fifo", "sjf", "las", "easy-backfill"})
      for (const std::string metric : {"wait_s.mean", "utilization"}) {
        double sum = 0;
        int n = 0;
        for (const auto& row : results)
          if (row["variant"] == policy) {
            sum += *numeric_at(row["summary"], metric);
            ++n;
          }
        REQUIRE(n == 3);
        const auto& board = rows.at(trace_name + " " + metric + " " + policy);
        CHECK(std::stod(board.at("mean")) == Approx(sum / 3).epsilon(1e-6));
        CHECK(board.at("n") == "3");
      }
  }
  // Per-class columns: the metric over the class's jobs, averaged over the replicates in which
  // the class has jobs, from each cell's by_size / by_duration; none for utilization.
  for (const std::string trace_name : {"a", "b"}) {
    const auto results = read_sweep_results(dir + "/out/sweeps/" + trace_name + "/results.jsonl");
    for (const auto& c : leaderboard_classes()) {
      const std::string by = std::string("by_") + job_class_kind_name(c.kind);
      for (const std::string policy : {"fifo", "las"}) {
        double sum = 0;
        int n = 0;
        for (const auto& row : results)
          if (row["variant"] == policy)
            if (const auto v = numeric_at(row["summary"][by][c.label], "wait_s.mean")) {
              sum += *v;
              ++n;
            }
        const auto& board = rows.at(trace_name + " wait_s.mean " + policy);
        INFO(trace_name << " " << policy << " " << c.column);
        if (n == 0) {
          CHECK(board.at(c.column).empty());
        } else {
          REQUIRE_FALSE(board.at(c.column).empty());
          CHECK(std::stod(board.at(c.column)) == Approx(sum / n).epsilon(1e-6));
        }
        CHECK(rows.at(trace_name + " utilization " + policy).at(c.column).empty());
      }
    }
  }
  CHECK(rows.at("a wait_s.mean fifo").at("size=1") != "");

  // Tables show times in days when every mean of the column is at least 2 days, else in hours;
  // the CSV keeps seconds.
  for (const std::string trace_name : {"a", "b"}) {
    bool days = true;
    double fifo_s = 0;
    for (const std::string policy : {"fifo", "sjf", "las", "easy-backfill"}) {
      const double mean_s = std::stod(rows.at(trace_name + " wait_s.mean " + policy).at("mean"));
      days = days && mean_s >= 2 * 86400;
      if (policy == "fifo") fifo_s = mean_s;
    }
    const std::string table = md.substr(md.find("## Trace " + trace_name + "\n"));
    INFO(table);
    CHECK(table.find(fmt::format("| policy | mean wait ({}) | GPU utilization (fraction) |",
                                 days ? "d" : "h")) != std::string::npos);
    const std::string shown = fixed(fifo_s / (days ? 86400 : 3600), 1);
    CHECK(table.find("| fifo | " + shown.substr(0, shown.size() - 1)) != std::string::npos);
  }
  CHECK(rows.at("overall score fifo").at("size=1").empty());
  CHECK(csv.substr(0, csv.find('\n'))
            .ends_with(
                ",size=1,size=2-4,size=5-8,size=9+,duration=<=10m,duration=10m-1h,duration=1h-6h,"
                "duration=6h-1d,duration=>1d"));

  // Ranks within a scope and metric follow the means in the metric's direction.
  for (const std::string metric : {"wait_s.mean", "utilization"}) {
    std::vector<std::pair<int, double>> ranked;
    for (const std::string policy : {"fifo", "sjf", "las", "easy-backfill"}) {
      const auto& row = rows.at("a " + metric + " " + policy);
      ranked.emplace_back(std::stoi(row.at("rank")), std::stod(row.at("mean")));
    }
    std::sort(ranked.begin(), ranked.end());
    for (std::size_t k = 1; k < ranked.size(); ++k)
      if (metric == "utilization")
        CHECK(ranked[k].second <= ranked[k - 1].second);
      else
        CHECK(ranked[k].second >= ranked[k - 1].second);
  }

  // A second run resumes every cell and writes the same bytes.
  const LeaderboardOutcome again = run_leaderboard(suite, options);
  CHECK(again.ran == 0);
  CHECK(again.resumed == 24);
  CHECK(read_text(dir + "/out/leaderboard.md") == md);
  CHECK(read_text(dir + "/out/leaderboard.csv") == csv);
  CHECK(read_text(dir + "/out/leaderboard.html") == html);
}

TEST_CASE("each track of a suite ranks on its own as a suite of its own would", "[leaderboard]") {
  const std::string dir = fresh_temp_dir("leaderboard-tracks");
  const std::string trace = write_small_trace(dir);
  const Json one = small_suite(trace);
  Json two = Json{{"name", "two"},
                  {"traces", Json::array({Json{{"path", trace}, {"cluster", "2x8:V100"}}})},
                  {"policies", Json::array({"las", "fifo"})},
                  {"metrics", Json::array({"jct_s.mean", "wait_s.p95"})}};
  // The suite's seeds and options are the defaults of both tracks.
  const Json suite_json = Json{{"name", "tracked"},
                               {"seeds", one["seeds"]},
                               {"options", one["options"]},
                               {"tracks", Json::array({Json{{"name", "one"},
                                                            {"traces", one["traces"]},
                                                            {"policies", one["policies"]},
                                                            {"metrics", one["metrics"]}},
                                                       two})}};
  const LeaderboardSuite suite = parse_leaderboard_suite(suite_json, "suite.json", dir);
  REQUIRE(suite.has_tracks);
  REQUIRE(suite.tracks.size() == 2);
  CHECK(suite.tracks[1].name == "two");
  CHECK(suite.tracks[1].seeds == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(suite.tracks[1].traces[0].sweep_dir == "two/small");
  LeaderboardRunOptions options;
  options.out_dir = dir + "/tracks";
  options.jobs = 2;
  const LeaderboardOutcome tracked = run_leaderboard(suite, options);
  REQUIRE_FALSE(tracked.first_failure);
  CHECK(tracked.cells == 2 * 3 * 3 + 2 * 3);
  CHECK(fs::exists(dir + "/tracks/sweeps/one/a/results.jsonl"));
  CHECK(fs::exists(dir + "/tracks/sweeps/two/small/results.jsonl"));
  const std::string md = read_text(dir + "/tracks/leaderboard.md");
  CHECK(md.find("Suite `suite.json`: 2 tracks (one, two), each ranked on its own.") !=
        std::string::npos);
  CHECK(md.find("## Track one\n") != std::string::npos);
  CHECK(md.find("## Track two\n") != std::string::npos);
  CHECK(md.find("### Trace small\n") != std::string::npos);
  const std::string html = read_text(dir + "/tracks/leaderboard.html");
  std::size_t charts = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    ++charts;
  CHECK(charts == 2);  // one per track

  // Each track's rows are those of the same track run as a suite of its own.
  Json alone_one = one;
  Json alone_two = two;
  alone_two["seeds"] = one["seeds"];
  alone_two["options"] = one["options"];
  const std::string tracked_csv = read_text(dir + "/tracks/leaderboard.csv");
  CHECK(tracked_csv.starts_with("track,scope,metric,"));
  const auto tracked_rows = board_rows(tracked_csv);
  std::size_t compared = 0;
  for (const auto& [name, alone] :
       {std::pair{std::string("one"), alone_one}, std::pair{std::string("two"), alone_two}}) {
    LeaderboardRunOptions alone_options;
    alone_options.out_dir = dir + "/" + name;
    const LeaderboardOutcome done =
        run_leaderboard(parse_leaderboard_suite(alone, "suite.json", dir), alone_options);
    REQUIRE_FALSE(done.first_failure);
    for (auto [key, row] : board_rows(read_text(dir + "/" + name + "/leaderboard.csv"))) {
      INFO(name << " " << key);
      REQUIRE(tracked_rows.count(name + " " + key) == 1);
      auto tracked_row = tracked_rows.at(name + " " + key);
      CHECK(tracked_row.at("track") == name);
      tracked_row.erase("track");
      CHECK(tracked_row == row);
      ++compared;
    }
  }
  CHECK(compared == tracked_rows.size());

  // Track errors name the track.
  Json bad = suite_json;
  bad["tracks"][1]["name"] = "one";
  CHECK(suite_error_of(bad) ==
        "suite.json: tracks[1].name: 'one' names two tracks (a name must be unique)");
  bad = suite_json;
  bad["tracks"][0].erase("name");
  CHECK(suite_error_of(bad) == "suite.json: tracks[0].name: missing (the track's name, a string)");
  bad = suite_json;
  bad["traces"] = one["traces"];
  CHECK(suite_error_of(bad) ==
        "suite.json: traces: a suite with \"tracks\" gives the traces in each track");
  bad = suite_json;
  bad["tracks"][1]["metrics"] = Json::array({"wait_s.avg"});
  CHECK(suite_error_of(bad) ==
        "suite.json: tracks[1].metrics[0]: 'wait_s.avg' is not a metric "
        "of summary.json (docs/metrics.md)");
  bad = suite_json;
  bad["tracks"][0]["replicates"] = 2;
  CHECK(suite_error_of(bad).starts_with("suite.json: tracks[0].replicates: unknown key"));
}

TEST_CASE("the command runs plug-in policies, resumes, and refuses bad suites", "[leaderboard]") {
  const std::string dir = fresh_temp_dir("leaderboard-cli");
  Json json = small_suite(write_small_trace(dir));
  json["plugins"] = Json::array({SCHEDLAB_PLUGIN_SMALLEST_FIRST});
  json["policies"].push_back("smallest-first");  // one line adds a plug-in policy
  write_text(dir + "/suite.json", json.dump(2));
  const std::string command =
      fmt::format("{} leaderboard {} -o {} -j 2 -q", shell_quote(schedlab_binary()),
                  shell_quote(dir + "/suite.json"), shell_quote(dir + "/out"));
  const CommandResult first = run_command(command);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find("leaderboard: 24 cells (24 run, 0 resumed)") != std::string::npos);
  const auto rows = board_rows(read_text(dir + "/out/leaderboard.csv"));
  CHECK(rows.count("overall score smallest-first") == 1);
  CHECK(rows.at("a wait_s.mean smallest-first").at("n") == "3");
  const CommandResult again = run_command(command);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("leaderboard: 24 cells (0 run, 24 resumed)") != std::string::npos);

  json["metrics"] = Json::array({"engine.wall_s"});
  write_text(dir + "/bad.json", json.dump(2));
  const CommandResult bad =
      run_command(fmt::format("{} leaderboard {} -o {}", shell_quote(schedlab_binary()),
                              shell_quote(dir + "/bad.json"), shell_quote(dir + "/bad-out")));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == dir +
                       "/bad.json: metrics[0]: 'engine.wall_s' cannot rank policies: it is "
                       "timing, never gated (a ranking metric is lower or higher is better)\n");
  CHECK_FALSE(fs::exists(dir + "/bad-out"));
}

TEST_CASE("the committed board of the default suite reproduces", "[leaderboard]") {
  // The tenants track replays the shared Philly 2017 trace (next to the repository).
  if (!std::ifstream(std::string(SCHEDLAB_SHARED_DIR) + "/traces/philly-2017/philly.csv")) {
    WARN("shared Philly 2017 trace not found: skipped");
    return;
  }
  const std::string out = fresh_temp_dir("leaderboard-default");
  const CommandResult done = run_command(
      fmt::format("cd {} && {} leaderboard suites/default.json -o {} -j 2 -q",
                  shell_quote(source_dir()), shell_quote(schedlab_binary()), shell_quote(out)));
  INFO(done.err);
  REQUIRE(done.exit_code == 0);
  const std::string board = read_text(out + "/leaderboard.md");
  const std::string committed =
      embedded_board(read_text((fs::path(source_dir()) / "docs/leaderboard.md").string()));
  INFO("docs/leaderboard.md is stale: `make leaderboard` rewrites it; review the rank changes");
  CHECK(committed == board);
  CHECK(board.find("| 1 | las-no-starvation-guard |") != std::string::npos);
  CHECK(board.find("## Track tenants") != std::string::npos);
}
