// Sweeps split into shards (--shard K/N), joined again (--merge) and run as a Slurm array
// (--emit-slurm): the joined results equal one run byte for byte.
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/sweep_batch.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

SweepOutcome run_shard(const SweepSpec& spec, const std::string& out, std::size_t k,
                       std::size_t n) {
  SweepRunOptions options;
  options.out_dir = out;
  options.shard = SweepShard{k, n};
  return run_sweep(spec, options);
}

std::string merge_error_of(const std::vector<std::string>& dirs, const std::string& out) {
  try {
    merge_sweep_shards(dirs, out);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("shard K/N parses and splits the cells by index modulo N", "[workflows][sweep]") {
  CHECK(parse_sweep_shard("2/3").index == 2);
  CHECK(parse_sweep_shard("2/3").count == 3);
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/2000000"})
    CHECK_THROWS_AS(parse_sweep_shard(bad), ConfigError);
  const SweepSpec spec = parse_sweep_spec(small_sweep_spec("t.csv"), "spec.json");
  std::vector<std::size_t> owner(8, 0);
  for (std::size_t k = 1; k <= 3; ++k)
    for (const auto& cell : expand_cells(spec))
      if (in_shard(cell, SweepShard{k, 3})) owner[cell.index] += k;
  CHECK(owner == std::vector<std::size_t>{1, 2, 3, 1, 2, 3, 1, 2});
}

TEST_CASE("shards 1/3..3/3 merged equal one run byte for byte", "[workflows][sweep]") {
  const std::string dir = fresh_temp_dir("sweep-shards");
  const std::string trace_path = write_small_trace(dir);
  const SweepSpec spec = parse_sweep_spec(small_sweep_spec(trace_path), "spec.json");
  SweepRunOptions whole;
  whole.out_dir = dir + "/whole";
  whole.jobs = 2;
  REQUIRE(run_sweep(spec, whole).ran == 8);

  std::vector<std::string> shards;
  for (std::size_t k = 1; k <= 3; ++k) {
    shards.push_back(fmt::format("{}/shard{}", dir, k));
    const SweepOutcome outcome = run_shard(spec, shards.back(), k, 3);
    CHECK(outcome.cells == (k < 3 ? 3 : 2));
    CHECK(outcome.total_cells == 8);
  }
  // A shard holds its own cells only, and says which shard it is.
  CHECK(fs::exists(dir + "/shard2/cells/0004/cell.json"));
  CHECK_FALSE(fs::exists(dir + "/shard2/cells/0000"));
  const Json shard_spec = Json::parse(read_text(dir + "/shard2/sweep.json"));
  CHECK(shard_spec["shard"] == Json{{"index", 2}, {"count", 3}});

  // Any order of the directories gives the same merge.
  const SweepMergeOutcome merged =
      merge_sweep_shards({shards[2], shards[0], shards[1]}, dir + "/merged");
  CHECK(merged.shards == 3);
  CHECK(merged.cells == 8);
  CHECK(merged.failed == 0);
  const auto expected = tree_of(whole.out_dir);
  CHECK(expected.size() == 8 * 6 + 6);  // 8 cells of 5 files and a marker, 5 tables and a marker
  CHECK(tree_of(dir + "/merged") == expected);
  // The merged directory is a finished sweep of the spec: nothing is left to run.
  SweepRunOptions again = whole;
  again.out_dir = dir + "/merged";
  CHECK(run_sweep(spec, again).ran == 0);

  // A resumed shard reruns nothing.
  CHECK(run_shard(spec, shards[0], 1, 3).ran == 0);
}

TEST_CASE("merge refuses missing, repeated and foreign shards and writes nothing",
          "[workflows][sweep]") {
  const std::string dir = fresh_temp_dir("sweep-merge-errors");
  const std::string trace_path = write_small_trace(dir);
  const SweepSpec spec = parse_sweep_spec(small_sweep_spec(trace_path), "spec.json");
  for (std::size_t k = 1; k <= 2; ++k) run_shard(spec, fmt::format("{}/s{}", dir, k), k, 2);
  Json other_json = small_sweep_spec(trace_path);
  other_json["seeds"] = {1, 2, 3};
  const SweepSpec other = parse_sweep_spec(other_json, "other.json");
  run_shard(other, dir + "/o2", 2, 2);
  run_shard(spec, dir + "/t1", 1, 4);

  const std::string out = dir + "/out";
  CHECK(merge_error_of({dir + "/s1"}, out) ==
        "--merge: shard 2/2 is missing (give every shard's directory)");
  CHECK(merge_error_of({dir + "/s1", dir + "/s1"}, out) ==
        dir + "/s1/sweep.json: \"shard\": 1/2 is given twice (also " + dir + "/s1)");
  CHECK(merge_error_of({dir + "/s1", dir + "/o2"}, out) ==
        dir + "/o2/sweep.json: \"seeds\" differs from " + dir +
            "/s1/sweep.json: shards of different sweep specs cannot be merged");
  CHECK(merge_error_of({dir + "/s1", dir + "/t1"}, out) ==
        dir + "/t1/sweep.json: \"shard\": 1/4 of another split than " + dir +
            "/s1/sweep.json (1/2)");
  CHECK(merge_error_of({dir + "/s1", dir + "/nothing"}, out) ==
        dir + "/nothing/sweep.json: missing (not a sweep output directory)");
  CHECK(merge_error_of({dir + "/s1", dir + "/s2"}, dir + "/s2") ==
        "--merge: the output directory " + dir +
            "/s2 is one of the shards; merge into another directory");
  // An unfinished cell (its marker gone) is found before anything is copied.
  fs::remove(dir + "/s2/cells/0003/.schedlab-complete");
  CHECK(merge_error_of({dir + "/s1", dir + "/s2"}, out)
            .find("s2/cells/0003: incomplete output set") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  // More shards than cells is refused before anything runs.
  SweepRunOptions too_many;
  too_many.out_dir = dir + "/many";
  too_many.shard = SweepShard{1, 9};
  CHECK_THROWS_AS(run_sweep(spec, too_many), ConfigError);
  CHECK_FALSE(fs::exists(too_many.out_dir));
}

TEST_CASE("emit-slurm scripts, run as array tasks and merge, equal one run", "[workflows][sweep]") {
  const std::string dir = fresh_temp_dir("sweep-slurm");
  const std::string trace_path = write_small_trace(dir);
  const std::string exe = schedlab_binary();
  const std::string common = fmt::format(
      "{} sweep -p fifo -p sjf -t {} -c 2x8:V100 --seeds 1-3 --resample jitter:0.2 "
      "--reproducible -q",
      shell_quote(exe), shell_quote(trace_path));
  REQUIRE(std::system(fmt::format("{} -o {} -j 2 >/dev/null", common, shell_quote(dir + "/whole"))
                          .c_str()) == 0);
  REQUIRE(std::system(fmt::format("{} -o {} --emit-slurm --shards 4 --time 0:10:00 >/dev/null",
                                  common, shell_quote(dir + "/slurm"))
                          .c_str()) == 0);
  const std::string script = read_text(dir + "/slurm/sweep.sbatch");
  CHECK(script.find("#SBATCH --array=1-4\n") != std::string::npos);
  CHECK(script.find("#SBATCH --time=0:10:00\n") != std::string::npos);
  CHECK(script.find("--shard \"$shard/4\"") != std::string::npos);
  for (int k = 1; k <= 4; ++k)
    REQUIRE(std::system(
                fmt::format("cd {} && SLURM_ARRAY_TASK_ID={} bash slurm/sweep.sbatch >/dev/null",
                            shell_quote(dir), k)
                    .c_str()) == 0);
  REQUIRE(std::system(fmt::format("bash {} >/dev/null", shell_quote(dir + "/slurm/merge.sbatch"))
                          .c_str()) == 0);
  // The scripts' spec names the trace by its absolute path; so does the run here.
  for (const char* name : {"results.csv", "results.jsonl", "aggregate.csv", "aggregate.jsonl"}) {
    INFO(name);
    CHECK(read_text(dir + "/slurm/" + name) == read_text(dir + "/whole/" + name));
  }
  for (int cell = 0; cell < 6; ++cell) {
    const std::string rel = fmt::format("/cells/{:04}/jobs.csv", cell);
    CHECK(read_text(dir + "/slurm" + rel) == read_text(dir + "/whole" + rel));
  }
}
