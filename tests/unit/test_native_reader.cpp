#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/trace.hpp"
#include "support/builders.hpp"

#include <filesystem>
#include <fstream>

using namespace schedlab;
using schedlab::testing::trace_from_csv;

namespace {

std::string error_of(const std::string& csv) {
  try {
    trace_from_csv(csv, "t.csv");
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("native reader maps columns by name in any order", "[trace][native]") {
  const Trace trace = trace_from_csv(
      "gpus,duration,extra,id,submit_time,walltime,priority,user,tenant,gpu_type,preemptible\n"
      "4,100,x,a,0,200,5,alice,vc1,H100,0\n"
      "1,0.5,y,b,1.25,,,bob,,,\n");
  REQUIRE(trace.jobs.size() == 2);
  const JobSpec& a = trace.jobs[0];
  CHECK(a.id == "a");
  CHECK(a.submit_ms == 0);
  CHECK(a.gpus == 4);
  CHECK(a.duration_ms == 100'000);
  CHECK(a.walltime_ms == 200'000);
  CHECK(a.priority == 5);
  CHECK(trace.strings.str(a.user) == "alice");
  CHECK(trace.strings.str(a.tenant) == "vc1");
  CHECK(trace.strings.str(a.gpu_type) == "H100");
  CHECK_FALSE(a.preemptible);
  CHECK(a.line == 2);
  const JobSpec& b = trace.jobs[1];
  CHECK(b.submit_ms == 1250);
  CHECK(b.duration_ms == 500);
  CHECK(b.walltime_ms == kUnsetMs);
  CHECK(b.priority == 0);
  CHECK(b.gpu_type == 0);
  CHECK(b.preemptible);
  CHECK(b.line == 3);
}

TEST_CASE("seconds are rounded once to whole milliseconds", "[trace][native]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration\n"
      "a,0.0005,1,1.2344\n"
      "b,0.0004,1,1.2345\n"
      "c,1e3,1,2.5e-3\n"
      "d,\"7\",1,86400\n");
  CHECK(trace.jobs[0].submit_ms == 1);
  CHECK(trace.jobs[0].duration_ms == 1234);
  CHECK(trace.jobs[1].submit_ms == 0);
  CHECK(trace.jobs[1].duration_ms == 1235);
  CHECK(trace.jobs[2].submit_ms == 1'000'000);
  CHECK(trace.jobs[2].duration_ms == 3);
  CHECK(trace.jobs[3].submit_ms == 7000);
  CHECK(trace.jobs[3].duration_ms == 86'400'000);
}

TEST_CASE("CRLF line ends, quoted fields and blank lines are handled", "[trace][native]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,user\r\n"
      "\"job,1\",0,1,10,\"o\"\"brien\"\r\n"
      "\r\n"
      "job2,5,2,10,\"multi\nline\"\r\n");
  REQUIRE(trace.jobs.size() == 2);
  CHECK(trace.jobs[0].id == "job,1");
  CHECK(trace.strings.str(trace.jobs[0].user) == "o\"brien");
  CHECK(trace.jobs[1].id == "job2");
  CHECK(trace.jobs[1].line == 4);
  CHECK(trace.strings.str(trace.jobs[1].user) == "multi\nline");
}

TEST_CASE("native reader error paths name file, line, column and value", "[trace][native]") {
  CHECK(error_of("") == "t.csv:1: empty file: expected a header row");
  CHECK(error_of("id,submit_time,gpus,duration\n") ==
        "t.csv:2: no jobs: the file has a header but no rows");
  CHECK(error_of("id,submit_time,duration\na,0,1\n") ==
        "t.csv:1: missing required column 'gpus' (required: id, submit_time, gpus, duration)");
  CHECK(error_of("id,submit_time,gpus,gpus,duration\na,0,1,1,1\n") ==
        "t.csv:1: column 'gpus' appears twice in the header");
  CHECK(error_of("id,submit_time,gpus,duration\na,0,1,10\nb,0,abc,10\n") ==
        "t.csv:3: column 'gpus': expected an integer in 1..1000000000, got 'abc'");
  CHECK(error_of("id,submit_time,gpus,duration\na,0,0,10\n") ==
        "t.csv:2: column 'gpus': expected an integer in 1..1000000000, got '0'");
  CHECK(error_of("id,submit_time,gpus,duration\na,0,1.5,10\n") ==
        "t.csv:2: column 'gpus': expected an integer in 1..1000000000, got '1.5'");
  CHECK(error_of("id,submit_time,gpus,duration\na,-1,1,10\n") ==
        "t.csv:2: column 'submit_time': expected seconds >= 0, got '-1'");
  CHECK(error_of("id,submit_time,gpus,duration\na,x,1,10\n") ==
        "t.csv:2: column 'submit_time': expected seconds >= 0, got 'x'");
  CHECK(error_of("id,submit_time,gpus,duration\na,0,1,0\n") ==
        "t.csv:2: column 'duration': expected seconds > 0, got '0'");
  CHECK(error_of("id,submit_time,gpus,duration\na,0,1,0.0004\n") ==
        "t.csv:2: column 'duration': expected seconds > 0, got '0.0004'");
  CHECK(error_of("id,submit_time,gpus,duration\na,0,1,\n") ==
        "t.csv:2: column 'duration': expected seconds > 0, got ''");
  CHECK(error_of("id,submit_time,gpus,duration,walltime\na,0,1,5,-3\n") ==
        "t.csv:2: column 'walltime': expected seconds > 0, got '-3'");
  CHECK(error_of("id,submit_time,gpus,duration,priority\na,0,1,5,high\n") ==
        "t.csv:2: column 'priority': expected an integer in "
        "-4611686018427387904..4611686018427387903, got 'high'");
  CHECK(error_of("id,submit_time,gpus,duration,preemptible\na,0,1,5,yes\n") ==
        "t.csv:2: column 'preemptible': expected 0 or 1, got 'yes'");
  CHECK(error_of("id,submit_time,gpus,duration\n,0,1,5\n") ==
        "t.csv:2: column 'id': expected a non-empty string, got ''");
  CHECK(error_of("id,submit_time,gpus,duration\na,0,1,5\nb,0,1,5\na,3,1,5\n") ==
        "t.csv:4: column 'id': duplicate id 'a' (first at line 2)");
  CHECK(error_of("id,submit_time,gpus,duration\na,0,1\n") ==
        "t.csv:2: expected 4 fields as in the header, got 3");
  CHECK(error_of("id,submit_time,gpus,duration\n\"a,0,1,5\n") ==
        "t.csv:2: unterminated quoted field");
}

TEST_CASE("unreadable trace files are input errors", "[trace][native]") {
  try {
    read_trace("/nonexistent/dir/trace.csv");
    FAIL("expected an error");
  } catch (const TraceError& e) {
    CHECK(std::string(e.what()) ==
          "/nonexistent/dir/trace.csv: cannot open for reading: No such file or directory");
  }
  CHECK_THROWS_AS(read_trace("/"), TraceError);
}

TEST_CASE("bad traces on the command line: exit 2, one stderr line, no output",
          "[trace][native][cli]") {
  const std::string dir = schedlab::testing::fresh_temp_dir("badtrace");
  const std::string trace = dir + "/bad.csv";
  {
    std::ofstream out(trace);
    out << "id,submit_time,gpus,duration\na,0,1,10\nb,5,two,10\n";
  }
  const auto result =
      schedlab::testing::run_command(std::string(SCHEDLAB_BINARY) + " run --trace " + trace +
                                     " --cluster 1x8 --out " + dir + "/out");
  CHECK(result.exit_code == 2);
  CHECK(result.err ==
        trace + ":3: column 'gpus': expected an integer in 1..1000000000, got 'two'\n");
  CHECK(result.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir + "/out"));
}
