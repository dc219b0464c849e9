// `mpirun -n N schedlab sweep`: the output tree equals a local `-j 1` run byte for byte, a dead
// rank loses only its cell in flight (a rerun names it and completes the tree), and bad input
// ends every rank with exit code 2 and one error line. Built only when CMake found MPI.
#ifdef SCHEDLAB_HAVE_MPI

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

// mpirun as root (the test machines' user), with more ranks than cores, in a container.
std::string mpirun(int ranks) {
  return fmt::format(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMPI_MCA_btl_vader_single_copy_mechanism=none {} -n {} --oversubscribe {}",
      shell_quote(SCHEDLAB_MPIEXEC), ranks, shell_quote(schedlab_binary()));
}

// The file names of two trees that differ in content or presence.
std::vector<std::string> differences(const std::map<std::string, std::string>& a,
                                     const std::map<std::string, std::string>& b) {
  std::vector<std::string> names;
  for (const auto& [name, content] : a)
    if (!b.contains(name) || b.at(name) != content) names.push_back(name);
  for (const auto& [name, content] : b)
    if (!a.contains(name)) names.push_back(name);
  return names;
}

std::size_t finished_cells(const std::string& out) {
  std::size_t n = 0;
  if (!fs::exists(out + "/cells")) return 0;
  for (const auto& entry : fs::directory_iterator(out + "/cells"))
    if (fs::exists(entry.path() / "cell.json")) ++n;
  return n;
}

}  // namespace

TEST_CASE("sweep on 3 MPI ranks equals a local -j 1 run byte for byte", "[workflows][sweep][mpi]") {
  const std::string dir = fresh_temp_dir("sweep-mpi");
  const std::string small = write_small_trace(dir);
  const std::string synthetic = dir + "/synthetic.csv";
  REQUIRE(run_command(fmt::format("{} gen -n 400 --seed 7 --gang-mix 1:.6,2:.2,4:.1,8:.1 -o {}",
                                  shell_quote(schedlab_binary()), shell_quote(synthetic)))
              .exit_code == 0);
  const std::string sweep = fmt::format(
      "sweep -p fifo -p sjf -p easy-backfill -t {} -t {} -c 2x8:V100 --seeds 1-3 "
      "--resample jitter:0.2 --reproducible",
      shell_quote(small), shell_quote(synthetic));
  const auto local = run_command(fmt::format("{} {} -o {} -j 1 -q", shell_quote(schedlab_binary()),
                                             sweep, shell_quote(dir + "/local")));
  REQUIRE(local.exit_code == 0);
  const auto ranked =
      run_command(fmt::format("{} {} -o {} -j 2", mpirun(3), sweep, shell_quote(dir + "/mpi")));
  INFO(ranked.err);
  REQUIRE(ranked.exit_code == 0);
  CHECK_THAT(ranked.out, Catch::Contains("sweep: 18 cells (18 run, 0 resumed, 0 failed)"));
  CHECK_THAT(ranked.out, Catch::Contains("with 4 workers on 2 ranks"));
  // Rank 0 alone reports progress: one line per cell.
  CHECK(count_of(ranked.err, "sweep: running 18 cells\n") == 1);
  CHECK(count_of(ranked.err, " done: ") == 18);
  CHECK(count_of(ranked.err, "sweep: [18/18] cell ") == 1);
  const auto expected = tree_of(dir + "/local");
  const auto got = tree_of(dir + "/mpi");
  CHECK(expected.size() == 6 + 18 * 6);  // marker, sweep.json, 4 tables; 6 files a cell
  CHECK(differences(expected, got).empty());
  CHECK(got == expected);
  // Seeds differ (resampling), so equal trees are not equal by accident.
  CHECK(read_text(dir + "/mpi/cells/0000/jobs.csv") != read_text(dir + "/mpi/cells/0001/jobs.csv"));
  fs::remove_all(dir);
}

TEST_CASE(
    "a rank killed mid-sweep loses only its cell, and a rerun names it and completes the tree",
    "[workflows][sweep][mpi]") {
  const std::string dir = fresh_temp_dir("sweep-mpi-kill");
  // Conservative backfilling of 1,600-2,000 queued jobs: 0.2-0.3 s a cell, time enough to catch
  // one in flight.
  for (const auto& [name, jobs, seed] :
       {std::tuple{"a.csv", 2000, 5}, std::tuple{"b.csv", 1600, 6}})
    REQUIRE(run_command(fmt::format("{} gen -n {} --seed {} --gang-mix 1:.5,2:.2,4:.2,8:.1 -o {}",
                                    shell_quote(schedlab_binary()), jobs, seed,
                                    shell_quote(dir + "/" + name)))
                .exit_code == 0);
  const std::string sweep = fmt::format(
      "sweep -p conservative-backfill -t {} -t {} -c 4x8:V100 --seeds 1-3 --resample jitter:0.2 "
      "--reproducible -q",
      shell_quote(dir + "/a.csv"), shell_quote(dir + "/b.csv"));
  const std::string out = dir + "/killed";
  REQUIRE(run_command(fmt::format("{} {} -o {} -j 1", shell_quote(schedlab_binary()), sweep,
                                  shell_quote(dir + "/clean")))
              .exit_code == 0);

  auto job = std::async(std::launch::async, [&] {
    return run_command(fmt::format("{} {} -o {} -j 1", mpirun(3), sweep, shell_quote(out)));
  });
  // Once a cell is done, kill a worker rank with a cell in flight that is not done.
  std::optional<nlohmann::json> victim;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!victim && std::chrono::steady_clock::now() < deadline &&
         job.wait_for(std::chrono::milliseconds(5)) != std::future_status::ready) {
    if (finished_cells(out) == 0 || !fs::exists(out + "/mpi-inflight.json")) continue;
    nlohmann::json journal;
    try {
      journal = nlohmann::json::parse(read_text(out + "/mpi-inflight.json"));
    } catch (const nlohmann::json::exception&) {
      continue;
    }
    for (const auto& entry : journal.at("in_flight")) {
      const std::string marker =
          fmt::format("{}/cells/{:04}/cell.json", out, entry.at("cell").get<int>());
      if (entry.at("rank").get<int>() >= 1 && !fs::exists(marker)) {
        victim = entry;
        REQUIRE(::kill(entry.at("pid").get<pid_t>(), SIGKILL) == 0);
        break;
      }
    }
  }
  REQUIRE(victim);
  const CommandResult stopped = job.get();
  INFO(stopped.err);
  CHECK(stopped.exit_code != 0);
  const int lost = (*victim)["cell"].get<int>();
  CHECK_FALSE(fs::exists(fmt::format("{}/cells/{:04}/cell.json", out, lost)));
  const std::size_t kept = finished_cells(out);
  CHECK(kept >= 1);
  CHECK(kept < 6);
  CHECK(fs::exists(out + "/mpi-inflight.json"));
  CHECK_FALSE(fs::exists(out + "/results.jsonl"));

  // The rerun (here without MPI) names the lost cell and runs only what is not done.
  const auto rerun = run_command(
      fmt::format("{} {} -o {} -j 1", shell_quote(schedlab_binary()), sweep, shell_quote(out)));
  INFO(rerun.err);
  REQUIRE(rerun.exit_code == 0);
  CHECK_THAT(rerun.err,
             Catch::Contains(fmt::format(
                 "sweep: the previous MPI run stopped with cell {} in flight on rank {} (pid {} on "
                 "host {}); it runs again\n",
                 lost, (*victim)["rank"].get<int>(), (*victim)["pid"].get<long>(),
                 (*victim)["host"].get<std::string>())));
  CHECK_THAT(rerun.out,
             Catch::Contains(fmt::format("({} run, {} resumed, 0 failed)", 6 - kept, kept)));
  CHECK_FALSE(fs::exists(out + "/mpi-inflight.json"));
  const auto expected = tree_of(dir + "/clean");
  const auto got = tree_of(out);
  CHECK(differences(expected, got).empty());
  CHECK(got == expected);
  fs::remove_all(dir);
}

TEST_CASE("bad input under mpirun: exit 2 from every rank, one error line, nothing written",
          "[workflows][sweep][mpi]") {
  const std::string dir = fresh_temp_dir("sweep-mpi-error");
  const std::string trace = write_small_trace(dir);
  const std::string out = dir + "/out";
  const auto missing =
      run_command(fmt::format("{} sweep -p fifo -t {} -c 2x8:V100 -o {}", mpirun(3),
                              shell_quote(dir + "/missing.csv"), shell_quote(out)));
  CHECK(missing.exit_code == 2);
  CHECK(count_of(missing.err, "missing.csv: cannot open for reading") == 1);
  CHECK(count_of(missing.out + missing.err, "sweep: running") == 0);
  CHECK_FALSE(fs::exists(out));

  const auto policy = run_command(fmt::format("{} sweep -p no-such-policy -t {} -c 2x8:V100 -o {}",
                                              mpirun(3), shell_quote(trace), shell_quote(out)));
  CHECK(policy.exit_code == 2);
  CHECK(count_of(policy.err, "unknown policy 'no-such-policy'") == 1);
  CHECK_FALSE(fs::exists(out));

  const auto merge =
      run_command(fmt::format("{} sweep --merge {} {} -o {}", mpirun(2), shell_quote(dir + "/s1"),
                              shell_quote(dir + "/s2"), shell_quote(out)));
  CHECK(merge.exit_code == 2);
  CHECK(count_of(merge.err,
                 "--merge and --emit-slurm run as one process, not on the 2 ranks of "
                 "an MPI job: run them without mpirun") == 1);
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

#endif  // SCHEDLAB_HAVE_MPI
