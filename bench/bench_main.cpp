// schedlab_bench: end-to-end benchmark of `schedlab run` at growing trace and cluster sizes, and
// the efficiency of a sweep on MPI ranks.
//
// For each size it writes a synthetic trace (Poisson arrivals, log-normal durations, gang
// sizes 1..64; seeded) as native CSV, then runs the schedlab binary as a child process per
// policy -- reading the trace and writing every output -- and reports wall time, jobs/s,
// events/s, the child's peak resident memory (wait4 rusage) and the cost per job relative to
// the smallest size.
//
// The sweep part runs one sweep (48 cells on a bundled trace) three times, each into a fresh
// directory: locally with -j 1, and under mpirun with 1 and 2 worker ranks (-n 2, -n 3; -j 1 each,
// rank 0 coordinates). It reports cells/s, the speedup of 2 worker ranks over 1 and the efficiency
// (speedup / worker ranks), and checks that every run wrote the same results.
//
// The inflate part places the bundled openb pod list (8,152 pods) inflated to 100% and to 130%
// of its node list's 6,212 GPUs with each GPU-sharing placement (one seed, in process) and
// reports the seconds per placement and pods placed per second; the target is under 2 s at 100%.
//
// The queue part (bench_queue) times every policy at queues of 10k and 100k jobs, and
// conservative-backfill when every end is early, from 2,500 to 100,000 jobs.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "schedlab/inflate.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/random.hpp"
#include "schedlab/sharing_inputs.hpp"
#include "schedlab/synthetic.hpp"
#include "schedlab/trace_writer.hpp"

namespace fs = std::filesystem;

namespace {

struct ChildRun {
  int exit_code = -1;
  double wall_s = 0;
  double peak_rss_mb = 0;
  bool timed_out = false;  // killed at the time limit
};

// `limit_s` > 0: the child is killed (SIGALRM) after that many seconds.
ChildRun run_child(const std::vector<std::string>& argv, const std::string& stdout_path,
                   unsigned limit_s = 0) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);
  const auto started = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(stdout_path.c_str(), "w", stdout)) _exit(127);
    if (limit_s > 0) alarm(limit_s);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  ChildRun run;
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.timed_out = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
  run.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
  return run;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The sweep on 1 and 2 worker ranks; returns the number of failed runs.
int bench_mpi_sweep(const std::string& schedlab, const std::string& mpirun,
                    const std::string& trace, const std::string& work_dir) {
  std::vector<std::string> sweep = {"sweep", "-t", trace};
  std::istringstream flags(
      "-p las -p conservative-backfill -c 8x8:V100 -c 4x8:V100 --load 1,2 --seeds 1-6 "
      "--resample jitter:0.2 --reproducible -q -j 1");
  for (std::string flag; flags >> flag;) sweep.push_back(flag);
  constexpr double kCells = 2 * 2 * 2 * 6;
  std::printf(
      "\nsweep on MPI ranks: %.0f cells (las, conservative-backfill x %s x 8x8, 4x8:V100 x load "
      "1, 2 x seeds 1-6, jitter:0.2), -j 1 per rank\n",
      kCells, fs::path(trace).filename().c_str());
  if (mpirun.empty()) {
    std::printf("skipped: schedlab was built without MPI (SCHEDLAB_MPI=OFF or no MPI found)\n");
    return 0;
  }
  // As root (containers), with more ranks than cores, without the single-copy mechanism that
  // containers often forbid.
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
  std::printf("%-14s %6s %8s %7s %8s %8s %11s\n", "run", "ranks", "workers", "wall_s", "cells/s",
              "speedup", "efficiency");
  struct Setup {
    std::string name;
    int ranks;  // 0: no mpirun
    int workers;
  };
  int failures = 0;
  double one_worker_rate = 0;
  std::string reference;
  for (const Setup& setup :
       {Setup{"local -j 1", 0, 1}, Setup{"mpirun -n 2", 2, 1}, Setup{"mpirun -n 3", 3, 2}}) {
    const std::string out_dir = fmt::format("{}/sweep-{}", work_dir, setup.ranks);
    fs::remove_all(out_dir);
    std::vector<std::string> argv;
    if (setup.ranks > 0) {
      argv = {mpirun, "-n", std::to_string(setup.ranks), "--oversubscribe"};
      if (geteuid() == 0) argv.emplace_back("--allow-run-as-root");
    }
    argv.push_back(schedlab);
    argv.insert(argv.end(), sweep.begin(), sweep.end());
    argv.insert(argv.end(), {"-o", out_dir});
    const ChildRun run = run_child(argv, out_dir + ".stdout");
    const std::string results = read_file(out_dir + "/results.jsonl");
    if (reference.empty()) reference = results;
    if (run.exit_code != 0 || results.empty() || results != reference) {
      std::printf("%-14s FAILED (exit %d%s; see %s.stdout)\n", setup.name.c_str(), run.exit_code,
                  results != reference ? ", results differ from the local run" : "",
                  out_dir.c_str());
      ++failures;
      continue;
    }
    const double rate = kCells / run.wall_s;
    if (setup.ranks == 2) one_worker_rate = rate;
    if (setup.ranks == 3 && one_worker_rate > 0)
      std::printf("%-14s %6d %8d %7.2f %8.1f %7.2fx %11.2f\n", setup.name.c_str(), setup.ranks,
                  setup.workers, run.wall_s, rate, rate / one_worker_rate,
                  rate / one_worker_rate / setup.workers);
    else
      std::printf("%-14s %6d %8d %7.2f %8.1f %8s %11s\n", setup.name.c_str(),
                  std::max(setup.ranks, 1), setup.workers, run.wall_s, rate, "-", "-");
    std::fflush(stdout);
  }
  return failures;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Seconds per GPU-sharing placement on the bundled openb lists; counts a placement over 2 s at
// 100% as a failure.
int bench_inflate(const std::string& nodes_path, const std::string& pods_path) {
  const schedlab::SharedCluster cluster = schedlab::read_shared_nodes(nodes_path);
  const auto tasks = schedlab::read_shared_tasks(pods_path, cluster);
  std::printf("\ninflate: %zu pods on %zu nodes, %lld GPUs (seed 42)\n", tasks.size(),
              cluster.nodes.size(), static_cast<long long>(cluster.gpu_count()));
  std::printf("%-15s %9s %8s %10s %9s\n", "placement", "inflation", "pods", "seconds", "pods/s");
  int failures = 0;
  for (const double inflation : {1.0, 1.3}) {
    schedlab::InflateOptions options;
    options.seeds = {42};
    options.inflation = inflation;
    const auto result = schedlab::run_inflate(cluster, tasks, options);
    for (const auto& r : result.replicates) {
      const double pods = static_cast<double>(r.points.back().tasks_arrived);
      std::printf("%-15s %9.1f %8.0f %10.3f %9.0f\n", schedlab::shared_placement_name(r.placement),
                  inflation, pods, r.seconds, pods / r.seconds);
      if (inflation == 1.0 && r.seconds >= 2.0) ++failures;
    }
    std::fflush(stdout);
  }
  return failures;
}

// The queue part. (1) Every policy on traces that flood 64 GPUs (8x8) so that nearly all of N
// jobs wait at once (offered load 100: the last arrival comes when about 1% of the work is
// done), N = 10k and 100k, exact walltimes. Every end is a scheduling call with a queue of up
// to N jobs, so the ratio of the two wall times is about 10 when a call costs O(log queue)
// and about 100 when it costs O(queue). (2) conservative-backfill when every end is early
// (walltimes 1 to 3 times the durations, seeded), where each end compresses the queue: 1-8-GPU
// jobs at load 1.5 on 1x8 (the queue grows to about a third of the trace), 2.5k to 100k jobs.
// Each run is stopped at `limit_s` ("> limit").
int bench_queue(const std::string& schedlab, const std::vector<std::string>& policies,
                const std::string& work_dir, std::uint64_t seed, std::uint32_t tenants,
                unsigned limit_s) {
  int failures = 0;
  auto timed = [&](std::vector<std::string> argv, const std::string& out_dir) -> std::string {
    const ChildRun run = run_child(argv, out_dir + ".stdout", limit_s);
    if (run.timed_out) return fmt::format("> {}", limit_s);
    if (run.exit_code != 0) {
      ++failures;
      return fmt::format("FAILED (exit {}; see {}.stdout)", run.exit_code, out_dir);
    }
    return fmt::format("{:.2f}", run.wall_s);
  };
  std::printf("\nqueue: N jobs flooding 8x8 (load 100), whole command, seconds\n");
  std::printf("%-22s %10s %10s %8s\n", "policy", "10k", "100k", "ratio");
  for (const auto& policy : policies) {
    const bool with_tenants = schedlab::policy_uses_tenants(policy);
    std::vector<std::string> cells;
    std::vector<double> wall_s;
    for (const std::uint64_t jobs : {10000, 100000}) {
      schedlab::SyntheticTraceSpec spec;
      spec.jobs = jobs;
      spec.seed = seed;
      spec.load = 100;
      spec.load_gpus = 64;
      if (with_tenants) {
        spec.tenants = tenants;
        spec.tenant_skew = 1.0;
      }
      const std::string path = fmt::format("{}/queue-{}{}.csv", work_dir, jobs,
                                           with_tenants ? fmt::format("-t{}", tenants) : "");
      if (!fs::exists(path))
        std::ofstream(path) << schedlab::to_native_csv(schedlab::generate_synthetic_trace(spec));
      const std::string out_dir = fmt::format("{}/queue-out-{}-{}", work_dir, policy, jobs);
      std::vector<std::string> argv = {schedlab,   "run",  "--trace", path,    "--cluster", "8x8",
                                       "--policy", policy, "--out",   out_dir, "--json"};
      if (with_tenants) argv.insert(argv.end(), {"--tenants", "equal"});
      cells.push_back(timed(argv, out_dir));
      wall_s.push_back(std::atof(cells.back().c_str()));
    }
    const std::string ratio =
        wall_s[0] > 0 && wall_s[1] > 0 ? fmt::format("{:.1f}x", wall_s[1] / wall_s[0]) : "-";
    std::printf("%-22s %10s %10s %8s\n", policy.c_str(), cells[0].c_str(), cells[1].c_str(),
                ratio.c_str());
    std::fflush(stdout);
  }
  if (std::find(policies.begin(), policies.end(), "conservative-backfill") == policies.end())
    return failures;
  std::printf(
      "\nqueue: conservative-backfill, every end early (1-8 GPUs, load 1.5, 1x8), "
      "seconds\n");
  std::printf("%8s %10s\n", "jobs", "wall_s");
  for (const std::uint64_t jobs : {2500, 5000, 10000, 100000}) {
    schedlab::SyntheticTraceSpec spec;
    spec.jobs = jobs;
    spec.seed = seed;
    spec.load = 1.5;
    spec.load_gpus = 8;
    spec.gang_mix.clear();
    for (int gpus = 1; gpus <= 8; ++gpus) spec.gang_mix.emplace_back(gpus, 1.0);
    schedlab::Trace trace = schedlab::generate_synthetic_trace(spec);
    schedlab::Rng rng(seed);
    for (auto& job : trace.jobs)  // walltime 1 to 3 times the duration
      job.walltime_ms = static_cast<schedlab::TimeMs>(
          static_cast<double>(job.duration_ms) * (1.0 + 2.0 * rng.uniform()) + 1000);
    const std::string path = fmt::format("{}/queue-early-{}.csv", work_dir, jobs);
    if (!fs::exists(path)) std::ofstream(path) << schedlab::format_native_trace(trace);
    const std::string out_dir = fmt::format("{}/queue-early-out-{}", work_dir, jobs);
    const std::string wall =
        timed({schedlab, "run", "--trace", path, "--cluster", "1x8", "--policy",
               "conservative-backfill", "--out", out_dir, "--json"},
              out_dir);
    std::printf("%8llu %10s\n", static_cast<unsigned long long>(jobs), wall.c_str());
    std::fflush(stdout);
  }
  return failures;
}

// The tenants part: quota, fair-share and drf with `--tenants equal` on traces of N tenants and
// 2N jobs (the first N jobs one per tenant, the rest to tenants drawn uniformly; Poisson
// arrivals at load 0.9 of 64x8 GPUs, gangs of 1-8 GPUs, log-normal durations of mean 1 h;
// seeded), N = 10k and 100k, whole command with --json (no output directory: timeseries.csv
// has a column per tenant, rows x tenants by its format). The target is under 10 s at 100k.
int bench_tenants(const std::string& schedlab, const std::string& work_dir, std::uint64_t seed) {
  const std::vector<std::uint32_t> sizes = {10000, 100000};
  std::printf("\ntenants: N tenants, 2N jobs on 64x8 (load 0.9), --tenants equal, --json\n");
  std::printf("%-12s %8s %8s %8s %9s %8s\n", "policy", "tenants", "jobs", "wall_s", "replay_s",
              "peak_MB");
  int failures = 0;
  for (const std::uint32_t tenants : sizes) {
    const std::string path = fmt::format("{}/tenants-{}.csv", work_dir, tenants);
    if (!fs::exists(path)) {
      std::mt19937_64 rng(seed);
      auto uniform = [&rng]() { return static_cast<double>(rng() >> 11) / 9007199254740992.0; };
      constexpr int kGangs[] = {1, 1, 1, 1, 2, 2, 4, 8};
      const double mean_gap_s = 2.5 * 3600.0 / (0.9 * 512);
      std::string csv = "id,submit_time,gpus,duration,tenant\n";
      double submit_s = 0;
      for (std::uint64_t j = 0; j < 2ULL * tenants; ++j) {
        submit_s += -std::log(1.0 - uniform()) * mean_gap_s;
        const auto tenant = j < tenants ? j : static_cast<std::uint64_t>(uniform() * tenants);
        const int gpus = kGangs[static_cast<int>(uniform() * 8)];
        // Log-normal, sigma 1, mean 3,600 s (Box-Muller).
        const double normal = std::sqrt(-2.0 * std::log(1.0 - uniform())) *
                              std::cos(2.0 * 3.141592653589793 * uniform());
        const double duration_s = std::max(1.0, std::exp(std::log(3600.0) - 0.5 + normal));
        csv += fmt::format("j{},{:.1f},{},{:.0f},t{:06d}\n", j, submit_s, gpus, duration_s, tenant);
      }
      std::ofstream(path) << csv;
    }
    for (const std::string policy : {"quota", "fair-share", "drf"}) {
      const std::string out = fmt::format("{}/tenants-{}-{}.json", work_dir, policy, tenants);
      const ChildRun run = run_child({schedlab, "run", "--trace", path, "--cluster", "64x8",
                                      "--policy", policy, "--tenants", "equal", "--json"},
                                     out);
      if (run.exit_code != 0) {
        std::printf("%-12s %8u  FAILED (exit %d; see %s)\n", policy.c_str(), tenants, run.exit_code,
                    out.c_str());
        ++failures;
        continue;
      }
      std::ifstream summary_file(out);
      const auto summary = nlohmann::json::parse(summary_file);
      std::printf("%-12s %8u %8u %8.2f %9.2f %8.1f\n", policy.c_str(), tenants, 2 * tenants,
                  run.wall_s, summary["engine"]["wall_s"].get<double>(), run.peak_rss_mb);
      if (tenants == 100000 && run.wall_s >= 10.0) ++failures;
      std::fflush(stdout);
    }
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"schedlab_bench: end-to-end replay benchmark at growing sizes"};
  std::string schedlab = "build/schedlab";
  std::string sizes_text = "10000,100000,1000000";
  std::string gpus_text = "1024,16384";
  std::string policies_text;
  std::string work_dir = "bench-out";
  double load = 0.85;
  std::uint64_t seed = 42;
  std::uint32_t tenants = 100;
  app.add_option("--schedlab", schedlab, "path of the schedlab binary")->capture_default_str();
  app.add_option("--jobs", sizes_text, "comma-separated trace sizes")->capture_default_str();
  app.add_option("--gpus", gpus_text, "comma-separated cluster sizes (GPUs, 8 per node)")
      ->capture_default_str();
  app.add_option("--policies", policies_text,
                 "comma-separated policies (default: every registered one)");
  app.add_option("--load", load, "offered load of the synthetic traces")->capture_default_str();
  app.add_option("--seed", seed, "generator seed")->capture_default_str();
  app.add_option("--tenants", tenants,
                 "tenants (Zipf-skewed, exponent 1) in the traces of the tenant policies")
      ->capture_default_str();
  app.add_option("--work-dir", work_dir, "where traces and outputs are written")
      ->capture_default_str();
  std::string parts_text = "replay,queue,sweep,inflate";
  app.add_option("--parts", parts_text,
                 "what to measure: replay (schedlab run), queue (every policy at queues of 10k "
                 "and 100k jobs), sweep (on MPI), inflate (GPU-sharing "
                 "placements), tenants (quota, fair-share, drf at 10k and 100k tenants)")
      ->capture_default_str();
  unsigned queue_limit_s = 20;
  app.add_option("--queue-limit", queue_limit_s,
                 "seconds after which a run of the queue part stops")
      ->capture_default_str();
  std::string mpirun = SCHEDLAB_BENCH_MPIEXEC;
  app.add_option("--mpirun", mpirun, "mpirun of the sweep part (\"\": skip it)")
      ->capture_default_str();
  std::string sweep_trace = "traces/philly-6214e9.csv";
  app.add_option("--sweep-trace", sweep_trace, "trace of the sweep part")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  const std::vector<std::string> parts = split(parts_text);
  auto wanted = [&parts](const char* part) {
    return std::find(parts.begin(), parts.end(), part) != parts.end();
  };

  std::vector<std::string> policies = split(policies_text);
  if (policies.empty())
    for (const auto& info : schedlab::registered_policies()) policies.push_back(info.name);
  fs::create_directories(work_dir);
  int failures = 0;
  if (wanted("replay")) {
    // wall_s, jobs/s, us/job: the whole command (start, read, replay, write); replay_us/job: the
    // replay alone (summary.json engine.wall_s); events/s: engine events over the replay time.
    // (xR): cost per job relative to the smallest size of the same policy and cluster.
    std::printf("%-22s %6s %8s %7s %9s %10s %8s %14s %16s\n", "policy", "gpus", "jobs", "wall_s",
                "jobs/s", "events/s", "peak_MB", "us/job", "replay_us/job");
    std::map<std::pair<std::string, std::string>, std::pair<double, double>> base_us_per_job;
    for (const auto& gpus : split(gpus_text)) {
      for (const auto& size : split(sizes_text)) {
        // The tenant policies replay the same kind of trace with tenants (`equal` quotas).
        auto trace_for = [&](bool with_tenants) {
          schedlab::SyntheticTraceSpec spec;
          spec.jobs = std::stoull(size);
          spec.seed = seed;
          spec.load = load;
          spec.load_gpus = std::stoll(gpus);
          if (with_tenants) {
            spec.tenants = tenants;
            spec.tenant_skew = 1.0;
          }
          const std::string path =
              with_tenants
                  ? fmt::format("{}/synthetic-{}-{}-t{}.csv", work_dir, size, gpus, tenants)
                  : fmt::format("{}/synthetic-{}-{}.csv", work_dir, size, gpus);
          if (!fs::exists(path))
            std::ofstream(path) << schedlab::to_native_csv(
                schedlab::generate_synthetic_trace(spec));
          return path;
        };
        const std::string cluster = fmt::format("{}x8", std::stoll(gpus) / 8);
        for (const auto& policy : policies) {
          const std::string trace_path = trace_for(schedlab::policy_uses_tenants(policy));
          const std::string out_dir = fmt::format("{}/out-{}-{}-{}", work_dir, policy, size, gpus);
          const ChildRun run = run_child({schedlab, "run", "--trace", trace_path, "--cluster",
                                          cluster, "--policy", policy, "--out", out_dir, "--json"},
                                         out_dir + ".stdout");
          if (run.exit_code != 0) {
            std::printf("%-22s %8s %9s  FAILED (exit %d; see %s.stdout)\n", policy.c_str(),
                        gpus.c_str(), size.c_str(), run.exit_code, out_dir.c_str());
            ++failures;
            continue;
          }
          std::ifstream summary_file(out_dir + "/summary.json");
          const auto summary = nlohmann::json::parse(summary_file);
          const double events = summary["engine"]["events"].get<double>();
          const double replay_s = summary["engine"]["wall_s"].get<double>();
          const double jobs = std::stod(size);
          const double us_per_job = run.wall_s * 1e6 / jobs;
          const double replay_us_per_job = replay_s * 1e6 / jobs;
          auto key = std::make_pair(policy, gpus);
          if (!base_us_per_job.count(key)) base_us_per_job[key] = {us_per_job, replay_us_per_job};
          const auto& [base_us, base_replay_us] = base_us_per_job[key];
          std::printf("%-22s %6s %8s %7.2f %9.0f %10.0f %8.1f %6.2f (x%.2f) %7.2f (x%.2f)\n",
                      policy.c_str(), gpus.c_str(), size.c_str(), run.wall_s, jobs / run.wall_s,
                      events / replay_s, run.peak_rss_mb, us_per_job, us_per_job / base_us,
                      replay_us_per_job, replay_us_per_job / base_replay_us);
          std::fflush(stdout);
        }
      }
    }
  }
  if (wanted("queue"))
    failures += bench_queue(schedlab, policies, work_dir, seed, tenants, queue_limit_s);
  if (wanted("sweep")) failures += bench_mpi_sweep(schedlab, mpirun, sweep_trace, work_dir);
  if (wanted("inflate"))
    failures += bench_inflate("traces/alibaba-openb-nodes.csv", "traces/alibaba-openb-pods.csv.gz");
  if (wanted("tenants")) failures += bench_tenants(schedlab, work_dir, seed);
  return failures == 0 ? 0 : 1;
}
