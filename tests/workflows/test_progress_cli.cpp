// The progress line of run, compare and sweep: on a terminal only, never with -q, and never in
// a log or a pipe.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

// Runs `command` with stdout and stderr on a pseudo-terminal (script(1)); returns what the
// terminal received.
CommandResult run_on_terminal(const std::string& command) {
  return run_command("script -qec " + shell_quote(command) + " /dev/null");
}

}  // namespace

TEST_CASE("long runs show progress on a terminal, and only there", "[workflows][progress]") {
  const std::string dir = fresh_temp_dir("progress-cli");
  const std::string trace = dir + "/t.csv";
  // Close to two seconds of conservative backfilling on an idle machine (20,000 jobs take
  // 0.2 s, too little to be sure of a report): several reports at 4 a second.
  REQUIRE(run_command(schedlab_binary() + " gen -n 100000 --seed 3 --load 0.95 --load-gpus 64 -o " +
                      shell_quote(trace))
              .exit_code == 0);
  const std::string run =
      schedlab_binary() + " run -t " + shell_quote(trace) + " -c 8x8:V100 -p conservative-backfill";
  const auto shown = run_on_terminal(run);
  INFO(shown.out);
  REQUIRE(shown.exit_code == 0);
  CHECK_THAT(shown.out, Catch::Contains("\r\033[Ksimulated "));
  CHECK_THAT(shown.out, Catch::Contains("/100000 jobs ("));
  CHECK_THAT(shown.out, Catch::Contains(" jobs/s, ETA "));
  // The line is cleared before the summary table.
  CHECK_THAT(shown.out, Catch::Contains("\r\033[Kschedlab: policy conservative-backfill on"));

  const auto quiet = run_on_terminal(run + " -q");
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.find("simulated ") == std::string::npos);
  CHECK(quiet.out.find('\033') == std::string::npos);

  const auto piped = run_command(run);
  CHECK(piped.exit_code == 0);
  CHECK(piped.err.empty());
  CHECK(piped.out.find('\033') == std::string::npos);

  const auto compared = run_on_terminal(schedlab_binary() + " compare -t " + shell_quote(trace) +
                                        " -c 8x8:V100 --policies fifo,conservative-backfill");
  CHECK(compared.exit_code == 0);
  CHECK_THAT(compared.out, Catch::Contains("[2/2] conservative-backfill: simulated "));
  fs::remove_all(dir);
}

TEST_CASE("sweep: progress inside a running cell, and a warning when seeds cannot vary results",
          "[workflows][progress][sweep]") {
  const std::string dir = fresh_temp_dir("progress-sweep");
  const std::string trace = dir + "/t.csv";
  REQUIRE(run_command(schedlab_binary() + " gen -n 100000 --seed 3 --load 0.95 --load-gpus 64 -o " +
                      shell_quote(trace))
              .exit_code == 0);
  const std::string sweep = schedlab_binary() + " sweep -t " + shell_quote(trace) +
                            " -c 8x8:V100 -p conservative-backfill --reproducible";
  const auto one_cell = run_on_terminal(sweep + " -o " + shell_quote(dir + "/one"));
  INFO(one_cell.out);
  REQUIRE(one_cell.exit_code == 0);
  // Before its only cell ends, the bar already shows it running.
  CHECK_THAT(one_cell.out, Catch::Contains("] 0/1 cells (+1 running)"));

  const std::string small = write_small_trace(dir);
  const std::string base = schedlab_binary() + " sweep -t " + shell_quote(small) + " -c " +
                           kSmallCluster + " -p fifo -q --seeds 1-3 -o ";
  const auto same = run_command(base + shell_quote(dir + "/same"));
  CHECK(same.exit_code == 0);
  CHECK(same.err ==
        "schedlab: warning: 3 seeds, but nothing in this sweep draws random numbers (only "
        "workload resampling, --resample, and generated failures, --failures rate=R without "
        "seed=S, do): every seed gives the same results, and their confidence intervals are 0\n");
  const auto varied = run_command(base + shell_quote(dir + "/varied") + " --failures rate=500");
  CHECK(varied.exit_code == 0);
  CHECK(varied.err.empty());
  const auto fixed_seed =
      run_command(base + shell_quote(dir + "/fixed") + " --failures rate=500,seed=4");
  CHECK(fixed_seed.exit_code == 0);
  CHECK_THAT(fixed_seed.err, Catch::Contains("3 seeds, but nothing in this sweep draws"));
  const auto resampled =
      run_command(base + shell_quote(dir + "/resampled") + " --resample jitter:0.2");
  CHECK(resampled.exit_code == 0);
  CHECK(resampled.err.empty());
  fs::remove_all(dir);
}
