// Inputs no file can break and outputs that are published whole: each case ends in one line
// naming the file and the reason with exit code 2 (bad input) or 5 (output failure), never a
// crash, a hang or a mixed set of outputs.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/sweep.hpp"
#include "support/builders.hpp"
#include "traces/trace_test_util.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

const std::string kBin = SCHEDLAB_BINARY;
const std::string kTrace = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/itp-cluster10.csv";

std::string nested_object(int levels) {
  std::string text;
  text.reserve(static_cast<std::size_t>(levels) * 6 + 1);
  for (int i = 0; i < levels; ++i) text += "{\"a\":";
  text += "1";
  text.append(static_cast<std::size_t>(levels), '}');
  return text;
}

}  // namespace

TEST_CASE("JSON inputs nested beyond 512 levels are refused, not a stack overflow",
          "[traces][limits]") {
  const std::string dir = fresh_temp_dir("limits-json");
  write_text(dir + "/deep.json", nested_object(20000));
  const CommandResult check =
      run_command(kBin + " check --baseline " + dir + "/deep.json --current " + dir + "/deep.json");
  CHECK(check.exit_code == 2);
  CHECK(check.err == dir + "/deep.json: JSON nested deeper than 512 levels\n");

  const CommandResult baseline = run_command(kBin + " run -t " + kTrace + " -c 2x8:A100 -p fifo " +
                                             "--json --baseline " + dir + "/deep.json");
  CHECK(baseline.exit_code == 2);
  CHECK(baseline.err.find(dir + "/deep.json: JSON nested deeper than 512 levels\n") !=
        std::string::npos);

  write_text(dir + "/spec.json", nested_object(500000));
  const CommandResult sweep = run_command(kBin + " sweep " + dir + "/spec.json -o " + dir + "/s");
  CHECK(sweep.exit_code == 2);
  CHECK(sweep.err == dir + "/spec.json: JSON nested deeper than 512 levels\n");

  write_text(dir + "/cluster.json", nested_object(100000));
  const CommandResult cluster =
      run_command(kBin + " run -t " + kTrace + " -c " + dir + "/cluster.json -p fifo --json");
  CHECK(cluster.exit_code == 2);
  CHECK(cluster.err == dir + "/cluster.json: JSON nested deeper than 512 levels\n");

  // 512 levels are still read (here: a valid document of another shape, refused for that).
  write_text(dir + "/ok.json", nested_object(500));
  const CommandResult ok =
      run_command(kBin + " check --baseline " + dir + "/ok.json --current " + dir + "/ok.json");
  CHECK(ok.err.find("nested deeper") == std::string::npos);
}

TEST_CASE("a directory or a named pipe given as an input file is refused at once",
          "[traces][limits]") {
  const std::string dir = fresh_temp_dir("limits-dir");
  fs::create_directories(dir + "/d");
  const std::string run = kBin + " run -t " + kTrace + " -c 2x8:A100 -p fifo --json ";
  for (const std::string& args :
       {run + "--failure-trace " + dir + "/d", run + "--carbon " + dir + "/d",
        kBin + " run -t " + kTrace + " -p fifo --json -c alibaba-openb:" + dir + "/d",
        kBin + " run -t " + kTrace + " -p fifo --json -c alibaba-pai:" + dir + "/d",
        kBin + " run -t " + kTrace + " -p fifo --json -c philly-vc:" + dir + "/d",
        kBin + " sweep " + dir + "/d -o " + dir + "/out"}) {
    INFO(args);
    const CommandResult r = run_command(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(dir + "/d: is a directory, not a file\n") != std::string::npos);
  }
  const std::string fifo = dir + "/pipe.csv";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const CommandResult pipe = run_command(kBin + " run -t " + fifo + " -c 2x8:A100 -p fifo --json");
  CHECK(pipe.exit_code == 2);
  CHECK(pipe.err == fifo +
                        ": not a regular file (a named pipe, socket or device): inputs are read "
                        "from files; write a stream to a file first\n");
}

TEST_CASE("a gzip file that inflates past 200x its size is refused early", "[traces][limits]") {
  const std::string dir = fresh_temp_dir("limits-gzip");
  // 80 MiB of one repeated row compress about 1000:1: over the 64 MiB floor and 200x.
  const CommandResult made =
      run_command("(yes 'a,0,1,10' | head -c 83886080 | gzip -9 > " + dir + "/bomb.csv.gz)");
  REQUIRE(made.exit_code == 0);
  const CommandResult r = run_command(kBin + " validate " + dir + "/bomb.csv.gz");
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(dir + "/bomb.csv.gz: inflates to more than 64 MiB, over 200x its compressed "
                         "size: not read (a decompression bomb or corrupt data?)") !=
        std::string::npos);
}

TEST_CASE("bytes that are not UTF-8 in ids and paths come out as U+FFFD in JSON",
          "[traces][limits]") {
  const std::string dir = fresh_temp_dir("limits-utf8") + "/caf\xE9";
  fs::create_directories(dir);
  write_text(dir + "/t.csv", "id,submit_time,gpus,duration\njob\xFF,0,1,10\nb,5,1,10\n");
  const CommandResult validate = run_command(kBin + " validate --json '" + dir + "/t.csv'");
  REQUIRE(validate.exit_code == 0);
  CHECK(nlohmann::json::parse(validate.out)["jobs"] == 2);
  const CommandResult run = run_command(kBin + " run -t '" + dir +
                                        "/t.csv' -c 1x2:V100 -p fifo --json -o '" + dir + "/out'");
  REQUIRE(run.exit_code == 0);
  const auto summary = nlohmann::json::parse(read_text(dir + "/out/summary.json"));
  CHECK(summary["trace"]["path"].get<std::string>().find("caf\xEF\xBF\xBD") != std::string::npos);
  CHECK(read_text(dir + "/out/jobs.csv").find("job\xFF,") != std::string::npos);  // CSV: bytes
}

TEST_CASE("an SWF log that starts with a byte-order mark is read as SWF", "[traces][limits]") {
  const std::string row = "1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n";
  CHECK(detected("log.swf", "\xEF\xBB\xBF; Version: 2.2\n" + row) == "swf");
  CHECK(detected("log.txt", "\xEF\xBB\xBF" + row) == "swf");
  const Trace t = read_as("swf", "log.swf", "\xEF\xBB\xBF" + row);
  REQUIRE(t.jobs.size() == 1);
  CHECK(t.jobs[0].gpus == 4);
}

TEST_CASE("a header of a million unknown columns gives one short warning", "[traces][limits]") {
  const std::string dir = fresh_temp_dir("limits-wide");
  std::string header = "id,submit_time,gpus,duration";
  std::string row = "a,0,1,10";
  for (int i = 0; i < 1000000; ++i) {
    header += ",x" + std::to_string(i);
    row += ",";
  }
  write_text(dir + "/wide.csv", header + "\n" + row + "\n");
  const CommandResult r = run_command(kBin + " validate " + dir + "/wide.csv");
  CHECK(r.exit_code == 0);
  CHECK(r.err.size() < 1000);
  CHECK(r.err.find("ignoring unknown columns 'x0', 'x1'") != std::string::npos);
  CHECK(r.err.find(", ... (1000000 in all)") != std::string::npos);
}

TEST_CASE("an output set interrupted while written is refused by report and check",
          "[traces][limits]") {
  const std::string dir = fresh_temp_dir("limits-set");
  const std::string run = kBin + " run -t " + kTrace + " -c 2x8:A100 -p fifo --json -o " + dir;
  REQUIRE(run_command(run + "/out").exit_code == 0);
  CHECK(fs::exists(dir + "/out/" + kCompleteMarker));
  REQUIRE(
      run_command(kBin + " check --baseline " + dir + "/out --current " + dir + "/out").exit_code ==
      0);
  // What kill -9 between the renames leaves: the marker is removed before the first one.
  fs::remove(dir + "/out/" + kCompleteMarker);
  const std::string refused = dir + "/out: incomplete output set: no " + kCompleteMarker +
                              " marker (the command writing it was interrupted, or it was not "
                              "written by schedlab); run it again\n";
  const CommandResult check =
      run_command(kBin + " check --baseline " + dir + "/out --current " + dir + "/out");
  CHECK(check.exit_code == 2);
  CHECK(check.err == refused);
  const CommandResult report = run_command(kBin + " report " + dir + "/out -o " + dir + "/r.html");
  CHECK(report.exit_code == 2);
  CHECK(report.err == refused);
  CHECK(!fs::exists(dir + "/r.html"));
}

TEST_CASE("an output that cannot be written exits 5 with the system's reason", "[traces][limits]") {
  const std::string dir = fresh_temp_dir("limits-output");
  write_text(dir + "/file", "x");
  const CommandResult r = run_command(kBin + " run -t " + kTrace +
                                      " -c 2x8:A100 -p fifo --json -o " + dir + "/file/out");
  CHECK(r.exit_code == 5);
  CHECK(r.err.find("schedlab: " + dir +
                   "/file/out: cannot create output directory: Not a directory\n") !=
        std::string::npos);

  // A full disk: the temporary file is /dev/full, whose writes fail with ENOSPC.
  const std::string out = dir + "/full";
  fs::create_directories(out);
  const std::string tmp = out + "/.summary.json.tmp." + std::to_string(::getpid());
  fs::create_symlink("/dev/full", tmp);
  CHECK_THROWS_WITH(write_files_atomically(out, {{"summary.json", "{}"}}),
                    out + "/summary.json: cannot write output file: No space left on device");
  CHECK(!fs::exists(out + "/summary.json"));
  CHECK(!fs::exists(out + "/" + kCompleteMarker));
  CHECK(!fs::exists(tmp));
}

TEST_CASE("a sweep spec that multiplies into more than a million cells is refused at once",
          "[traces][limits]") {
  using Json = nlohmann::ordered_json;
  auto error_of = [](const Json& spec) -> std::string {
    try {
      parse_sweep_spec(spec, "s.json");
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const Json twenty = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  // 20^6 variants: the grid alone would take tens of GB.
  Json grid = {{"policies", {{{"name", "priority"}, {"params", Json::object()}}}},
               {"traces", {"t.csv"}},
               {"clusters", {"1x8"}}};
  for (const char* key : {"a", "b", "c", "d", "e", "f"})
    grid["policies"][0]["params"][key] = twenty;
  CHECK(error_of(grid) ==
        "s.json: policies[0]: more than 1000000 variants (parameter values multiply): a sweep has "
        "at most 1000000 cells");

  Json seeds = {{"policies", {"fifo"}}, {"traces", {"t.csv"}}, {"clusters", {"1x8"}}};
  seeds["seeds"] = Json::array();
  for (int i = 0; i < 11; ++i)
    seeds["seeds"].push_back(std::to_string(i * 100000) + "-" + std::to_string(i * 100000 + 99999));
  CHECK(error_of(seeds) ==
        "s.json: seeds[10]: more than 1000000 seeds: a sweep has at most "
        "1000000 cells");

  Json axes = {{"policies", {{{"name", "priority"}, {"params", {{"aging", Json::array()}}}}}},
               {"traces", {"t.csv"}},
               {"clusters", {"1x8"}},
               {"seeds", {"1-1001"}}};
  for (int i = 0; i < 1000; ++i) axes["policies"][0]["params"]["aging"].push_back(i);
  CHECK(error_of(axes) ==
        "s.json: (top level): more than 1000000 cells (policy variants x traces x clusters x load "
        "scales x seeds: 1000 x 1 x 1 x 1 x 1001)");
  axes["seeds"] = {"1-1000"};
  CHECK(error_of(axes) == "(no error)");

  const std::string dir = fresh_temp_dir("limits-sweep");
  write_text(dir + "/grid.json", grid.dump());
  const CommandResult r = run_command(kBin + " sweep " + dir + "/grid.json -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.err == dir +
                     "/grid.json: policies[0]: more than 1000000 variants (parameter values "
                     "multiply): a sweep has at most 1000000 cells\n");
  CHECK(!fs::exists(dir + "/out"));
}

TEST_CASE("a sweep results row without a cell number is named by its axis values in the report",
          "[traces][limits]") {
  const std::string dir = fresh_temp_dir("limits-report-cell");
  write_text(dir + "/results.jsonl",
             R"({"policy":"fifo","variant":"fifo","params":{},"trace":"t.csv","cluster":"c",)"
             R"("load_scale":1,"seed":7,"status":"ok","summary":{"jobs":{"completed":3}}})"
             "\n");
  const CommandResult r =
      run_command(kBin + " report " + dir + "/results.jsonl -o " + dir + "/report.html");
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("cell (variant=fifo trace=t.csv cluster=c load_scale=1 seed=7) has no output "
                   "directory") != std::string::npos);
  CHECK(fs::exists(dir + "/report.html"));
}
