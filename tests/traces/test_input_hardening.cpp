// Inputs that used to get through, or end in the wrong way: each case is refused up front with
// one line naming the file (or option), the field and the value, exit 2 and nothing written;
// or, for runs that cannot finish, stopped with exit 3 before memory grows. The inputs that
// reproduce a defect from a file are also in tests/fuzz/corpus/<harness>/ (docs/fuzzing.md).
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/metrics.hpp"
#include "schedlab/resample.hpp"
#include "support/builders.hpp"
#include "traces/trace_test_util.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

const std::string kBin = SCHEDLAB_BINARY;
const std::string kCorpus = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fuzz/corpus/";

std::string corpus(const std::string& relative) {
  return kCorpus + relative;
}

}  // namespace

TEST_CASE("jobs.csv memory follows the GPUs jobs held: rejected billion-GPU jobs run",
          "[traces][hardening]") {
  const std::string dir = fresh_temp_dir("hardening-gpus");
  const std::string trace = corpus("trace_native/jobs_csv_rejected_huge_gpus.csv");
  const CommandResult r =
      run_command(kBin + " run -t " + trace + " -c 1x8:A100 -p fifo -o " + dir + "/out");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string jobs = read_text(dir + "/out/jobs.csv");
  CHECK(std::count(jobs.begin(), jobs.end(), '\n') == 5);
  CHECK(jobs.find("huge-c,2.000,1000000000,") != std::string::npos);
}

TEST_CASE("the timeseries size guard counts cells: 2000 tenants at 0.05 s are refused up front",
          "[traces][hardening]") {
  const std::string dir = fresh_temp_dir("hardening-cells");
  std::string text = "id,submit_time,gpus,duration,tenant\n";
  for (int i = 0; i < 2000; ++i) text += fmt::format("j{},{},1,10,t{}\n", i, i / 2, i);
  write_text(dir + "/t.csv", text);
  const CommandResult r = run_command(kBin + " run -t " + dir + "/t.csv -c 4x8:A100 -p fifo " +
                                      "--tenants equal --interval 0.05 -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "--interval 0.05 s: timeseries.csv would need more than 5000000 rows or 25000000 cells "
        "(rows x 2007 columns) for this run; use a larger interval\n");
  CHECK_FALSE(fs::exists(dir + "/out"));
  // The same run at a coarser interval is within the limit.
  const CommandResult ok = run_command(kBin + " run -t " + dir + "/t.csv -c 4x8:A100 -p fifo " +
                                       "--tenants equal --interval 10 -o " + dir + "/ok");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("a failure livelock stops with exit 3 after 100 failures per node",
          "[traces][hardening]") {
  const std::string dir = fresh_temp_dir("hardening-livelock");
  // Each node fails every 1.2 h on average and is repaired after 48 h: 10-day jobs on 8 GPUs
  // without checkpoints never finish.
  std::string text = "id,submit_time,gpus,duration\n";
  for (int i = 0; i < 20; ++i) text += fmt::format("j{},0,8,864000\n", i);
  write_text(dir + "/t.csv", text);
  const CommandResult r =
      run_command(kBin + " run -t " + dir + "/t.csv -c 200x8:A100 -p fifo --no-walltime-kill " +
                  "--failures rate=20000,repair=48,seed=3 -o " + dir + "/out");
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("failure livelock, 20001 node failures (100 per node of 200) without any job "
                   "arriving, ending or saving work") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(fs::exists(dir + "/out"));
}

TEST_CASE("failure runs of the committed baselines are not taken for livelocks",
          "[traces][hardening]") {
  // The baselines' failure case (tests/baselines/cases) with a failure rate 20 times higher:
  // runs to its end.
  const CommandResult r =
      run_command(kBin + " run -t " + std::string(SCHEDLAB_SOURCE_DIR) +
                  "/traces/philly-6214e9.csv -c 32x8:V100 -p fifo --no-walltime-kill --failures "
                  "rate=1000,repair=12,seed=7 --checkpoint-interval 1800 --json");
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("GPU watts beyond 1e5 are refused and no output holds a non-finite number",
          "[traces][hardening]") {
  const std::string trace = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/itp-cluster10.csv";
  const std::string cluster = corpus("cluster_spec/busy_watts_1e308.json");
  const CommandResult r =
      run_command(kBin + " run -t " + trace + " -c " + cluster + " -p fifo --json");
  CHECK(r.exit_code == 2);
  CHECK(r.err == cluster +
                     ": $.gpu_types[0].busy_watts: expected watts in 0..100000 per GPU, got "
                     "1e+308\n");
  // The final guard: a metric that is not finite is a broken invariant, never written.
  std::string out;
  CHECK_THROWS_AS(append_metric(out, std::numeric_limits<double>::infinity(), 3), InvariantError);
  CHECK_THROWS_AS(append_metric(out, std::nan(""), 3), InvariantError);
  CHECK(out.empty());
  nlohmann::ordered_json doc = {{"energy_kwh", {{"total", 1.5}, {"gpu_busy", 1.0}}}};
  CHECK_NOTHROW(require_finite_numbers(doc, "summary.json"));
  doc["energy_kwh"]["gpu_busy"] = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(require_finite_numbers(doc, "summary.json"),
                    Catch::Contains("summary.json.energy_kwh.gpu_busy: a metric written to an "
                                    "output is finite"));
}

TEST_CASE("trace directory entries named like trace files must be readable regular files",
          "[traces][hardening]") {
  const std::string good = "id,submit_time,gpus,duration\na,0,1,10\n";
  struct Case {
    const char* name;
    const char* why;
  };
  for (const Case& c : {Case{"dangling", "is a dangling or looping symbolic link"},
                        Case{"loop", "is a dangling or looping symbolic link"},
                        Case{"fifo", "is not a regular file (a named pipe, socket or device)"},
                        Case{"subdir", "is a directory, not a file"}}) {
    INFO(c.name);
    const std::string dir = fresh_temp_dir(std::string("hardening-dir-") + c.name);
    write_text(dir + "/a.csv", good);
    const std::string entry = dir + "/b.csv";
    const std::string kind = c.name;
    if (kind == "dangling") {
      fs::create_symlink(dir + "/missing.csv", entry);
    } else if (kind == "loop") {
      fs::create_symlink(dir + "/c.csv", entry);
      fs::create_symlink(entry, dir + "/c.csv");
    } else if (kind == "fifo") {
      REQUIRE(::mkfifo(entry.c_str(), 0600) == 0);
    } else {
      fs::create_directories(entry);
    }
    const CommandResult r = run_command(kBin + " validate " + dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.starts_with(entry + ": a trace-file name in the trace directory " + c.why));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("load scales and jitter that would overflow the clock are refused before converting",
          "[traces][hardening]") {
  const std::string trace = corpus("trace_native/load_jitter_int64_overflow.csv");
  const CommandResult run =
      run_command(kBin + " run -t " + trace + " -c 1x8:A100 -p fifo --json --resample jitter:0.9");
  CHECK(run.exit_code == 2);
  CHECK(run.err ==
        "--resample 'jitter:0.9': the trace's last arrival could reach 1.71e+13 s, beyond the "
        "clock's limit of 9e12 s (about 285,000 years)\n");

  const std::string dir = fresh_temp_dir("hardening-load");
  const CommandResult sweep =
      run_command(kBin + " sweep --trace " + trace + " --cluster 1x8:A100 --policy fifo " +
                  "--load 0.001 --resample jitter:0.9 -o " + dir + "/s");
  CHECK(sweep.exit_code == 2);
  CHECK(sweep.err ==
        "load scale 0.001 with --resample 'jitter:0.9': the trace's last arrival could reach "
        "1.71e+16 s, beyond the clock's limit of 9e12 s (about 285,000 years); use a larger "
        "load scale or a shorter trace\n");
  CHECK_FALSE(fs::exists(dir + "/s/results.jsonl"));

  const Trace t = read_trace(trace);
  CHECK_NOTHROW(check_time_range(t, 1.0, ResampleSpec{}));
  CHECK_THROWS_AS(check_time_range(t, 0.5, ResampleSpec{}), ConfigError);
}

TEST_CASE("a time too large says so, with the limit", "[traces][hardening]") {
  const std::string trace = corpus("trace_native/time_too_large.csv");
  const CommandResult r = run_command(kBin + " validate " + trace);
  CHECK(r.exit_code == 2);
  CHECK(r.err == trace +
                     ":2: column 'duration': expected seconds of at most 9e12 s (about 285,000 "
                     "years) (too large), got '1e13'\n");
  CHECK(seconds_too_large("1e13"));
  CHECK(seconds_too_large("1e999"));
  CHECK_FALSE(seconds_too_large("9e12"));
  CHECK_FALSE(seconds_too_large("abc"));

  const std::string ok = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/itp-cluster10.csv";
  const CommandResult option =
      run_command(kBin + " run -t " + ok + " -c 2x8:A100 -p fifo --json --interval 1e13");
  CHECK(option.exit_code == 2);
  CHECK(option.err.find("too large: at most 9e12 s (about 285,000 years)") != std::string::npos);
  CHECK(option.err.find("expected seconds") == std::string::npos);
}

TEST_CASE("the seed range cap is stated in words", "[traces][hardening]") {
  const std::string spec = corpus("sweep_spec/seed_range_over_cap.json");
  const std::string dir = fresh_temp_dir("hardening-seeds");
  const CommandResult r = run_command(kBin + " sweep " + spec + " -o " + dir + "/s");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("range \"0-200000\" holds 200001 seeds: a range may hold at most 100000 "
                   "seeds") != std::string::npos);
  const CommandResult help = run_command(kBin + " sweep --help");
  CHECK(help.out.find("a range A-B holds at most 100000 seeds") != std::string::npos);
}

TEST_CASE(
    "a file whose header lines start with a semicolon is read as SWF and its bad line reported",
    "[traces][hardening]") {
  const std::string trace = corpus("trace_swf/semicolon_header_bad_line.swf");
  const std::string text = read_text(trace);
  CHECK(detected("log.txt", text) == "swf");
  CHECK(detected("log.txt", "; only a comment\n") == "swf");
  const std::string dir = fresh_temp_dir("hardening-swf");
  write_text(dir + "/log.txt", text);
  const CommandResult r = run_command(kBin + " validate " + dir + "/log.txt");
  CHECK(r.exit_code == 2);
  CHECK(r.err.starts_with(dir + "/log.txt:3: "));
  CHECK(r.err.find("native") == std::string::npos);
}

TEST_CASE("a JSON key that appears twice in one object is refused in every JSON input",
          "[traces][hardening]") {
  CHECK_THROWS_WITH(
      parse_json_text<nlohmann::json>("{\"a\": 1,\n \"b\": {\"a\": 2},\n \"a\": 3}", "x.json"),
      "x.json:3: key \"a\" appears twice in one object (each key may appear once)");
  // The same key in different objects is fine.
  CHECK_NOTHROW(parse_json_text<nlohmann::ordered_json>("[{\"a\": 1}, {\"a\": 2}]", "y.json"));

  const std::string trace = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/itp-cluster10.csv";
  const std::string cluster = corpus("cluster_spec/duplicate_key.json");
  const CommandResult c =
      run_command(kBin + " run -t " + trace + " -c " + cluster + " -p fifo --json");
  CHECK(c.exit_code == 2);
  CHECK(c.err == cluster +
                     ":3: key \"pue\" appears twice in one object (each key may appear "
                     "once)\n");

  const std::string spec = corpus("sweep_spec/duplicate_key.json");
  const std::string dir = fresh_temp_dir("hardening-json");
  const CommandResult s = run_command(kBin + " sweep " + spec + " -o " + dir + "/s");
  CHECK(s.exit_code == 2);
  CHECK(s.err == spec +
                     ":4: key \"policies\" appears twice in one object (each key may appear "
                     "once)\n");

  write_text(dir + "/tenants.json",
             "{\"tenants\": [{\"name\": \"default\", \"quota\": 8, \"quota\": 16}]}\n");
  const CommandResult t = run_command(kBin + " run -t " + trace + " -c 2x8:A100 -p fifo --json " +
                                      "--tenants " + dir + "/tenants.json");
  CHECK(t.exit_code == 2);
  CHECK(t.err.find(dir + "/tenants.json:1: key \"quota\" appears twice in one object") !=
        std::string::npos);
}

TEST_CASE("a CSV column name that appears twice in a header is refused", "[traces][hardening]") {
  const std::string dir = fresh_temp_dir("hardening-columns");
  const std::string trace = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/itp-cluster10.csv";
  // The corpus inputs start with the harness's reader byte.
  const std::string carbon = read_text(corpus("model_inputs/carbon_duplicate_time_column.csv"));
  write_text(dir + "/carbon.csv", carbon.substr(1));
  const CommandResult c = run_command(kBin + " run -t " + trace + " -c 2x8:A100 -p fifo --json " +
                                      "--carbon " + dir + "/carbon.csv");
  CHECK(c.exit_code == 2);
  CHECK(c.err == dir + "/carbon.csv:1: column 'time' appears twice in the header\n");

  const std::string failures = read_text(corpus("model_inputs/failures_duplicate_column.csv"));
  write_text(dir + "/failures.csv", failures.substr(1));
  const CommandResult f = run_command(kBin + " run -t " + trace + " -c 2x8:A100 -p fifo --json " +
                                      "--failure-trace " + dir + "/failures.csv");
  CHECK(f.exit_code == 2);
  CHECK(f.err == dir + "/failures.csv:1: column 'down_time' appears twice in the header\n");

  const std::string native = corpus("trace_native/duplicate_column.csv");
  const CommandResult n = run_command(kBin + " validate " + native);
  CHECK(n.exit_code == 2);
  CHECK(n.err == native + ":1: column 'x' appears twice in the header\n");
}

TEST_CASE("a gzip input stops at the absolute cap of 1 GiB inflated", "[traces][hardening]") {
  const std::string dir = fresh_temp_dir("hardening-gzip");
  // 8 MB of random bytes (incompressible) and 17 members of 64 MiB of zeros: about 13 MB that
  // inflate to 1.07 GiB, under 200 times the compressed size, so only the absolute cap stops it.
  const CommandResult made = run_command(
      "(cd " + dir +
      " && head -c 8000000 /dev/urandom | gzip -1 > r.gz && head -c 67108864 /dev/zero | gzip -1 "
      "> z.gz && cat r.gz z.gz z.gz z.gz z.gz z.gz z.gz z.gz z.gz z.gz z.gz z.gz z.gz z.gz z.gz "
      "z.gz z.gz z.gz > bomb.csv.gz)");
  REQUIRE(made.exit_code == 0);
  const CommandResult r = run_command(kBin + " validate " + dir + "/bomb.csv.gz");
  CHECK(r.exit_code == 2);
  CHECK(r.err == dir +
                     "/bomb.csv.gz: inflates to more than 1024 MiB, the limit for a compressed "
                     "input: not read (decompress it first)\n");
}

TEST_CASE("split_on keeps empty and untrimmed parts", "[csv]") {
  using Parts = std::vector<std::string_view>;
  CHECK(split_on("a, b,,c ", ',') == Parts{"a", " b", "", "c "});
  CHECK(split_on("", ',') == Parts{""});
  CHECK(split_on("x.y", '.') == Parts{"x", "y"});
  CHECK(split_on(",", ',') == Parts{"", ""});
}

TEST_CASE("run options in seconds take a unit too", "[traces][hardening]") {
  const std::string trace = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/itp-cluster10.csv";
  const std::string dir = fresh_temp_dir("seconds-units");
  const CommandResult hours =
      run_command(kBin + " run -t " + trace + " -c 2x8:A100 -q --interval 1.5h -o " + dir + "/h");
  REQUIRE(hours.exit_code == 0);
  std::ifstream in(dir + "/h/timeseries.csv");
  std::string header;
  std::string first;
  std::string second;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  // Rows 1.5 h apart.
  CHECK(std::stod(second.substr(0, second.find(','))) -
            std::stod(first.substr(0, first.find(','))) ==
        5400.0);
  const CommandResult bad =
      run_command(kBin + " run -t " + trace + " -c 2x8:A100 --json --interval 7x");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "schedlab: --interval '7x': expected seconds or a time with a unit (90s, 30m, 12h, 2d)\n");
  const CommandResult huge =
      run_command(kBin + " run -t " + trace + " -c 2x8:A100 --json --power-off-idle 1e300d");
  CHECK(huge.exit_code == 2);
  CHECK(huge.err == "schedlab: --power-off-idle '1e300d': beyond the clock's limit\n");
}
