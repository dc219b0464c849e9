// Command-line frictions: compare --param for py: policies, time parameters with units,
// "did you mean" for parameter names and cluster-JSON keys, spaces in compact cluster specs,
// and a native CSV whose GPU column has another trace's name.
#include <catch2/catch.hpp>

#include <fstream>

#include "support/builders.hpp"

using namespace schedlab::testing;

namespace {

const char* kTrace =
    "id,submit_time,gpus,duration,priority,tenant\n"
    "a,0,3,100,0,t1\n"
    "b,1,2,100,1,t2\n"
    "c,2,4,100,2,t1\n"
    "d,3,1,300,0,t2\n"
    "e,4,4,7300,0,t1\n"
    "f,5,2,50,2,t2\n";

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string cli() {
  return SCHEDLAB_BINARY;
}

// The summary.json of one run into a fresh directory; "" when the run failed.
std::string summary_of(const std::string& args) {
  const std::string out = fresh_temp_dir("frictions-out");
  const auto r = run_command(cli() + " run -q " + args + " -o " + out);
  if (r.exit_code != 0) return "";
  return read_text(out + "/summary.json");
}

// summary.json without the lines that differ between identical runs (wall time, options as
// typed, cluster text).
std::string comparable(const std::string& summary) {
  std::string out;
  std::size_t start = 0;
  while (start < summary.size()) {
    std::size_t end = summary.find('\n', start);
    if (end == std::string::npos) end = summary.size();
    const std::string line = summary.substr(start, end - start);
    if (line.find("wall") == std::string::npos && line.find("\"cluster\"") == std::string::npos &&
        line.find("\"params\"") == std::string::npos && line.find("aging") == std::string::npos &&
        line.find("half_life") == std::string::npos && line.find("\"source\"") == std::string::npos)
      out += line + '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("compare --param addresses a py: policy by its whole name", "[cli][policies]") {
  const std::string dir = fresh_temp_dir("frictions-py");
  const std::string trace = write_file(dir, "trace.csv", kTrace);
  const std::string policy =
      std::string("py:") + SCHEDLAB_SOURCE_DIR + "/examples/python/smallest_first.py:SmallestFirst";
  const auto r =
      run_command(cli() + " compare -q --csv --trace " + trace + " --cluster 1x4 --policies fifo," +
                  policy + " --param " + policy + ":blocking=false");
  CHECK(r.err.find("is not in --policies") == std::string::npos);
  if (r.err.find("no Python bridge") != std::string::npos) return;  // built without Python
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(",blocking=false,") != std::string::npos);
  // A name that is not listed is still refused, whole.
  const auto bad = run_command(cli() + " compare -q --trace " + trace +
                               " --cluster 1x4 --policies fifo --param py:x.py:C:blocking=false");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("policy 'py:x.py:C' is not in --policies") != std::string::npos);
}

TEST_CASE("policy time parameters take units as --filter does", "[cli][policies]") {
  const std::string dir = fresh_temp_dir("frictions-units");
  const std::string trace = write_file(dir, "trace.csv", kTrace);
  const std::string base = "-t " + trace + " -c 1x4 ";
  const std::string in_seconds = summary_of(base + "-p priority --param aging=7200");
  REQUIRE(!in_seconds.empty());
  CHECK(comparable(summary_of(base + "-p priority --param aging=2h")) == comparable(in_seconds));
  CHECK(comparable(summary_of(base + "-p priority --param aging=120m")) == comparable(in_seconds));
  const std::string week = summary_of(base + "-p fair-share --param half_life=604800");
  REQUIRE(!week.empty());
  CHECK(comparable(summary_of(base + "-p fair-share --param half_life=7d")) == comparable(week));
  CHECK(comparable(summary_of(base + "-p preemptive --param min_runtime=90s")) ==
        comparable(summary_of(base + "-p preemptive --param min_runtime=90")));
  const auto bad =
      run_command(cli() + " run -q " + base + "-p priority --param aging=2w -o " + dir + "/bad");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "--param aging=2w: policy 'priority' expects a time >= 0 in seconds, or with a "
        "unit: 90s, 30m, 12h, 2d\n");
}

TEST_CASE("a misspelled parameter or cluster-JSON key gets a suggestion", "[cli][policies]") {
  const std::string dir = fresh_temp_dir("frictions-suggest");
  const std::string trace = write_file(dir, "trace.csv", kTrace);
  auto r = run_command(cli() + " run -q -t " + trace +
                       " -c 1x4 -p fair-share --param half-life=7d -o " + dir + "/a");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("has no parameter 'half-life'; did you mean 'half_life'?") != std::string::npos);
  const std::string cluster =
      write_file(dir, "cluster.json", R"({"node_group": [{"count": 1, "gpus_per_node": 4}]})");
  r = run_command(cli() + " run -q -t " + trace + " -c " + cluster + " -p fifo -o " + dir + "/b");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("$.node_group: unknown key; did you mean 'node_groups'? (known: ") !=
        std::string::npos);
}

TEST_CASE("spaces around the parts of a compact cluster spec are ignored", "[cli][cluster]") {
  const std::string dir = fresh_temp_dir("frictions-compact");
  const std::string trace = write_file(dir, "trace.csv", kTrace);
  const std::string tight = summary_of("-t " + trace + " -c 2x4:V100,1x8 -p fifo");
  REQUIRE(!tight.empty());
  CHECK(comparable(summary_of("-t " + trace + " -c '2 x 4 : V100 , 1 x 8' -p fifo")) ==
        comparable(tight));
  CHECK(comparable(summary_of("-t " + trace + " -c '2x4: v100,1x8' -p fifo")) == comparable(tight));
}

TEST_CASE("a native CSV with num_gpus instead of gpus names the column to rename", "[cli][trace]") {
  const std::string dir = fresh_temp_dir("frictions-native");
  const std::string trace =
      write_file(dir, "trace.csv", "id,submit_time,num_gpus,duration\na,0,1,10\n");
  const auto r = run_command(cli() + " run -q -t " + trace + " -c 1x4 -p fifo -o " + dir + "/o");
  CHECK(r.exit_code == 2);
  CHECK(r.err == trace +
                     ":1: missing required column 'gpus'; the header has 'num_gpus': rename it "
                     "'gpus' (required: id, submit_time, gpus, duration)\n");
  CHECK(!std::ifstream(dir + "/o/summary.json").good());
}
