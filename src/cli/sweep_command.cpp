// schedlab sweep: runs the cross product of a sweep spec (file and/or flags) in parallel and
// writes the results table, the across-seed aggregate and every cell's outputs.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/error_kind.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/metric_catalog.hpp"
#include "schedlab/output.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/sweep_batch.hpp"
#include "schedlab/sweep_inflight.hpp"
#include "schedlab/trace.hpp"
#include "sweep_logging.hpp"
#include "sweep_mpi.hpp"
#include "terminal_status.hpp"

namespace schedlab::cli {

namespace {

using Json = nlohmann::ordered_json;

struct SweepArgs {
  std::string spec_file;
  std::string out_dir;
  unsigned jobs = 0;
  bool rerun = false;
  bool quiet = false;
  std::vector<std::string> policies;
  std::vector<std::string> params;
  std::vector<std::string> traces;
  std::string format = "auto";
  std::vector<std::string> clusters;
  std::vector<double> loads;
  std::vector<std::string> seeds;
  std::map<std::string, RunOptionValue> options;  // run option flags given (run_option_table)
  bool reproducible = false;
  std::string shard;               // --shard K/N
  std::vector<std::string> merge;  // --merge DIR...
  bool emit_slurm = false;
  std::size_t shards = 0;  // --shards N (0: one per cell, at most kDefaultSlurmShards)
  std::string time_limit;
  std::string partition;
};

// Array tasks --emit-slurm writes when --shards is not given (Slurm's default MaxArraySize is
// 1001).
constexpr std::size_t kDefaultSlurmShards = 100;

// A path given as a flag (relative to the working directory) as the spec expects it: relative
// to the spec file's directory when there is one.
std::string flag_path(const std::string& path, const std::string& base_dir) {
  if (base_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return std::filesystem::relative(std::filesystem::absolute(path),
                                   std::filesystem::absolute(base_dir))
      .string();
}

// The spec from the file (if any) with every axis or option given as a flag replaced.
Json build_spec(const SweepArgs& a, std::string& source, std::string& base_dir) {
  Json spec = Json::object();
  source = "command line";
  if (!a.spec_file.empty()) {
    source = a.spec_file;
    SpecFile file = read_spec_file(a.spec_file);
    spec = std::move(file.json);
    base_dir = std::move(file.base_dir);
  }
  if (!a.params.empty() && a.policies.empty())
    throw ConfigError("--param POLICY:KEY=V1,V2 needs the policies given with --policy");
  if (!a.policies.empty()) {
    // --param POLICY:KEY=V1,V2,...: a grid of values for one policy's parameter.
    std::map<std::string, Json> params;
    for (const auto& item : a.params) {
      const auto colon = item.find(':');
      const auto equals = item.find('=');
      if (colon == std::string::npos || equals == std::string::npos || equals < colon ||
          colon == 0 || equals == colon + 1)
        throw ConfigError(fmt::format("--param {}: expected POLICY:KEY=VALUE[,VALUE...]", item));
      const std::string policy = item.substr(0, colon);
      if (std::find(a.policies.begin(), a.policies.end(), policy) == a.policies.end())
        throw ConfigError(
            fmt::format("--param {}: policy '{}' is not among --policy", item, policy));
      Json values = Json::array();
      std::string rest = item.substr(equals + 1);
      std::size_t begin = 0;
      while (true) {
        const auto comma = rest.find(',', begin);
        values.push_back(rest.substr(begin, comma == std::string::npos ? comma : comma - begin));
        if (comma == std::string::npos) break;
        begin = comma + 1;
      }
      auto& object = params[policy];
      if (object.is_null()) object = Json::object();
      object[item.substr(colon + 1, equals - colon - 1)] = values;
    }
    Json list = Json::array();
    for (const auto& name : a.policies) {
      if (params.contains(name)) {
        list.push_back(Json{{"name", name}, {"params", params[name]}});
      } else {
        list.push_back(name);
      }
    }
    spec["policies"] = list;
  }
  if (!a.traces.empty()) {
    Json list = Json::array();
    for (const auto& path : a.traces) {
      // Flag paths are relative to the working directory, not to the spec file.
      list.push_back(Json{{"path", flag_path(path, base_dir)}, {"format", a.format}});
    }
    spec["traces"] = list;
  }
  if (!a.clusters.empty()) {
    Json list = Json::array();
    for (const auto& text : a.clusters)
      list.push_back(rewrite_cluster_spec_file(
          text, [&base_dir](const std::string& file) { return flag_path(file, base_dir); }));
    spec["clusters"] = list;
  }
  if (!a.loads.empty()) spec["load_scales"] = a.loads;
  if (!a.seeds.empty()) {
    Json list = Json::array();
    for (const auto& text : a.seeds) {
      const auto value = parse_int(text);
      if (value && *value >= 0) {
        list.push_back(*value);
      } else {
        list.push_back(text);  // a range "A-B", checked by the spec parser
      }
    }
    spec["seeds"] = list;
  }
  auto& options = spec["options"];
  if (options.is_null()) options = Json::object();
  for (const auto& [key, value] : a.options) {
    const RunOptionInfo& option = *find_run_option(key);
    if (option.kind == RunOptionKind::kFile)
      options[key] = flag_path(std::get<std::string>(value), base_dir);
    else if (option.kind == RunOptionKind::kSwitch)
      options[key] = std::get<bool>(value);
    else if (option.kind == RunOptionKind::kText)
      options[key] = std::get<std::string>(value);
    else
      options[key] = std::get<double>(value);
  }
  if (options.empty()) spec.erase("options");
  if (a.reproducible) spec["reproducible"] = true;
  return spec;
}

// Progress on stderr: on a terminal a bar redrawn in place that also advances inside running
// cells (their share of finished jobs), otherwise one line per finished cell.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool quiet) : quiet_(quiet), status_(quiet) {}

  void operator()(const SweepProgress& p) {
    // Cells a stopped MPI run lost are news even with -q.
    for (const auto& cell : p.interrupted)
      std::fprintf(stderr, "sweep: %s\n", printable_text(interrupted_cell_text(cell)).c_str());
    if (quiet_) return;
    const std::lock_guard lock(mutex_);
    if (p.label.empty()) {  // after the resume scan
      started_ = std::chrono::steady_clock::now();
      if (p.resumed > 0)
        std::fprintf(stderr, "sweep: %zu of %zu cells already done, running %zu\n", p.resumed,
                     p.total, p.total - p.resumed);
      else
        std::fprintf(stderr, "sweep: running %zu cells\n", p.total);
      resumed_ = p.resumed;
      last_ = p;
      return;
    }
    running_.erase(p.cell);
    last_ = p;
    if (!status_.enabled()) {
      std::fprintf(stderr, "sweep: [%zu/%zu] cell %zu %s: %s (%.2f s)\n", p.done, p.total, p.cell,
                   p.ok ? "done" : "FAILED", printable_text(p.label).c_str(), p.wall_s);
      std::fflush(stderr);
      return;
    }
    redraw();
  }

  // Progress inside a running cell (from its worker thread).
  void cell(std::size_t index, const RunProgress& p) {
    if (!status_.enabled()) return;
    const std::lock_guard lock(mutex_);
    if (p.done) return;  // the cell's own report follows
    running_[index] = p.jobs_total == 0 ? 1.0
                                        : static_cast<double>(p.jobs_finished) /
                                              static_cast<double>(p.jobs_total);
    redraw();
  }

 private:
  void redraw() {
    if (last_.total == 0) return;
    double partial = 0.0;
    for (const auto& [index, fraction] : running_) partial += fraction;
    const double done = static_cast<double>(last_.done) + partial;
    const double fraction = done / static_cast<double>(last_.total);
    constexpr int kWidth = 30;
    std::string bar(static_cast<std::size_t>(fraction * kWidth), '#');
    bar.resize(kWidth, '.');
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started_;
    const double ran = done - static_cast<double>(resumed_);
    const double left = static_cast<double>(last_.total) - done;
    std::string line = fmt::format("[{}] {}/{} cells", bar, last_.done, last_.total);
    if (!running_.empty()) line += fmt::format(" (+{} running)", running_.size());
    if (last_.failed > 0) line += fmt::format(" ({} failed)", last_.failed);
    if (ran > 0) line += " ETA " + human_duration_text(elapsed.count() / ran * left);
    if (!last_.label.empty()) line += "  " + last_.label;
    if (last_.done == last_.total)
      status_.clear();
    else
      status_.show(line);
  }

  bool quiet_;
  TerminalStatus status_;
  std::mutex mutex_;
  SweepProgress last_;                     // the latest finished cell's report
  std::map<std::size_t, double> running_;  // cell -> its share of finished jobs
  std::size_t resumed_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// Mean (± 95% CI) of a catalog metric, with the catalog's decimals.
std::string mean_ci_text(const SweepGroup& group, const std::string& metric) {
  const int decimals = catalog_metric(metric).decimals;
  const auto it = group.stats.find(metric);
  if (it == group.stats.end()) return "-";
  if (it->second.n < 2) return fixed(it->second.mean, decimals);
  return fmt::format("{} ± {}", fixed(it->second.mean, decimals), fixed(it->second.ci95, decimals));
}

// Overview on stdout: key metrics per group (mean ± 95% CI over seeds).
std::string overview(const std::vector<SweepGroup>& groups) {
  std::string out =
      fmt::format("{:<24} {:<22} {:<14} {:>6} {:>3}  {:>24}  {:>24}  {:>18}\n", "variant", "trace",
                  "cluster", "load", "n", "wait_s.mean", "jct_s.mean", "utilization");
  for (const auto& g : groups) {
    out += fmt::format(
        "{:<24} {:<22} {:<14} {:>6} {:>3}  {:>24}  {:>24}  {:>18}\n",
        g.definition["variant"].get<std::string>(),
        std::filesystem::path(g.definition["trace"].get<std::string>()).filename().string(),
        g.definition["cluster"].get<std::string>(),
        format_number(g.definition["load_scale"].get<double>()), g.seeds.size(),
        mean_ci_text(g, "wait_s.mean"), mean_ci_text(g, "jct_s.mean"),
        mean_ci_text(g, "utilization"));
  }
  return out;
}

// Rethrows a failed cell's exception with the cell named, keeping its exit code.
[[noreturn]] void rethrow_cell_failure(const SweepOutcome& outcome, const std::string& out_dir) {
  rethrow_with_context(
      outcome.first_failure,
      fmt::format("sweep cell {} failed ({} of {} cells failed; see {}/results.csv)",
                  outcome.first_failed_cell, outcome.failed, outcome.cells, out_dir));
}

}  // namespace

[[noreturn]] void rethrow_with_context(const std::exception_ptr& failure,
                                       const std::string& where) {
  const ClassifiedError error = classify_exception(failure);
  if (error.kind == ErrorKind::kInternal || error.kind == ErrorKind::kOutOfMemory)
    std::rethrow_exception(failure);
  throw_error(error.kind, fmt::format("{}: {}", where, error.what));
}

namespace {

// `sweep --merge DIR... -o OUT`: joins shard outputs.
int run_merge(const SweepArgs& a) {
  if (!a.spec_file.empty() || !a.policies.empty() || !a.traces.empty() || !a.clusters.empty() ||
      !a.loads.empty() || !a.seeds.empty() || !a.options.empty() || !a.shard.empty() ||
      a.emit_slurm || a.reproducible)
    throw ConfigError(
        "--merge takes shard directories and -o only: the shards' sweep.json is the spec");
  const SweepMergeOutcome outcome = merge_sweep_shards(a.merge, a.out_dir);
  const auto rows =
      read_sweep_results((std::filesystem::path(a.out_dir) / "results.jsonl").string());
  if (!a.quiet) {
    const std::string table = overview(aggregate_sweep(rows));
    std::fwrite(table.data(), 1, table.size(), stdout);
  }
  std::printf("sweep: merged %zu shards: %zu cells (%zu failed); results in %s\n", outcome.shards,
              outcome.cells, outcome.failed, a.out_dir.c_str());
  std::fflush(stdout);
  for (const auto& row : rows) {
    if (row["status"] == "ok") continue;
    spdlog::error("sweep cell {} failed ({} of {} cells failed; see {}/results.csv): {}",
                  row["cell"].get<std::size_t>(), outcome.failed, outcome.cells, a.out_dir,
                  row.value("error", std::string()));
    return exit_code_of_failure_text(row.value("error", std::string()));
  }
  return kExitOk;
}

// `sweep ... --emit-slurm -o OUT`: writes the spec and the Slurm array and merge scripts.
int emit_slurm(const SweepArgs& a, const SweepSpec& parsed) {
  if (!a.shard.empty()) throw ConfigError("--emit-slurm cannot be combined with --shard");
  const SweepSpec spec = with_absolute_paths(parsed);
  load_sweep_inputs(spec);  // the same checks as a run, before anything is written
  const std::size_t cells = expand_cells(spec).size();
  SlurmArrayRequest request;
  request.out_dir = std::filesystem::absolute(a.out_dir).lexically_normal().string();
  while (request.out_dir.size() > 1 && request.out_dir.ends_with('/')) request.out_dir.pop_back();
  request.executable = std::filesystem::read_symlink("/proc/self/exe").string();
  request.working_dir = std::filesystem::current_path().string();
  request.shards = a.shards > 0 ? a.shards : std::min(cells, kDefaultSlurmShards);
  if (request.shards > cells)
    throw ConfigError(
        fmt::format("--shards {}: more shards than the sweep's {} cells", a.shards, cells));
  request.cpus_per_task = std::max(1U, a.jobs);
  request.time_limit = a.time_limit;
  request.partition = a.partition;
  const auto files = slurm_array_files(spec, request);
  const OutputDirLock lock(request.out_dir);
  std::vector<std::pair<std::string, std::string_view>> views;
  views.reserve(files.size());
  for (const auto& [name, content] : files) views.emplace_back(name, content);
  std::filesystem::create_directories(std::filesystem::path(request.out_dir) / "logs");
  std::filesystem::create_directories(std::filesystem::path(request.out_dir) / "shards");
  write_files_atomically(request.out_dir, views);
  for (const char* script : {"sweep.sbatch", "merge.sbatch"})
    std::filesystem::permissions(std::filesystem::path(request.out_dir) / script,
                                 std::filesystem::perms::owner_exec |
                                     std::filesystem::perms::group_exec |
                                     std::filesystem::perms::others_exec,
                                 std::filesystem::perm_options::add);
  std::printf(
      "sweep: %zu cells as a Slurm array of %zu tasks (%u CPUs each) in %s\n"
      "submit:\n  jid=$(sbatch --parsable %s)\n"
      "  sbatch --dependency=afterany:$jid %s\n",
      cells, request.shards, request.cpus_per_task, request.out_dir.c_str(),
      shell_word(request.out_dir + "/sweep.sbatch").c_str(),
      shell_word(request.out_dir + "/merge.sbatch").c_str());
  return kExitOk;
}

// Every check of the command line but those of the run itself, and the useless-seeds warning.
SweepSpec checked_spec(const SweepArgs& a) {
  if (!a.emit_slurm && (a.shards > 0 || !a.time_limit.empty() || !a.partition.empty()))
    throw ConfigError("--shards, --time and --partition go with --emit-slurm");
  std::string source;
  std::string base_dir;
  const Json json = build_spec(a, source, base_dir);
  SweepSpec spec = parse_sweep_spec(json, source, base_dir);
  if (spec.seeds.size() > 1 && !spec.options.seed_changes_results())
    spdlog::warn(
        "{} seeds, but nothing in this sweep draws random numbers (only workload resampling, "
        "--resample, and generated failures, --failures rate=R without seed=S, do): every seed "
        "gives the same results, and their confidence intervals are 0",
        spec.seeds.size());
  return spec;
}

// Cells run at once for -j N (0: one per core).
unsigned worker_threads(unsigned jobs) {
  return jobs > 0 ? jobs : std::max(1U, std::thread::hardware_concurrency());
}

// The run options of the command line, without the progress callbacks.
SweepRunOptions run_options_of(const SweepArgs& a) {
  SweepRunOptions options;
  if (!a.shard.empty()) options.shard = parse_sweep_shard(a.shard);
  options.out_dir = a.out_dir;
  options.jobs = worker_threads(a.jobs);
  options.rerun = a.rerun;
  return options;
}

// The overview table and the closing line on stdout; rethrows the first failed cell's error.
// `workers`: who ran the cells ("4 workers").
int report_sweep(const SweepArgs& a, const SweepRunOptions& options, const SweepOutcome& outcome,
                 double wall_s, const std::string& workers) {
  const auto rows =
      read_sweep_results((std::filesystem::path(a.out_dir) / "results.jsonl").string());
  const std::string table = overview(aggregate_sweep(rows));
  std::fwrite(table.data(), 1, table.size(), stdout);
  const std::string share =
      options.shard.count > 1
          ? fmt::format(" of shard {}/{} ({} cells in all)", options.shard.index,
                        options.shard.count, outcome.total_cells)
          : std::string();
  std::printf(
      "sweep: %zu cells%s (%zu run, %zu resumed, %zu failed) in %.2f s with %s; "
      "results in %s\n",
      outcome.cells, share.c_str(), outcome.ran, outcome.resumed, outcome.failed, wall_s,
      workers.c_str(), a.out_dir.c_str());
  std::fflush(stdout);
  if (outcome.first_failure) rethrow_cell_failure(outcome, a.out_dir);
  return kExitOk;
}

// `sweep` in one process: joins shards, writes Slurm scripts or runs the cells on threads.
int run_sweep_command(const SweepArgs& a) {
  if (!a.merge.empty()) return run_merge(a);
  const SweepSpec spec = checked_spec(a);
  if (a.emit_slurm) return emit_slurm(a, spec);
  SweepRunOptions options = run_options_of(a);
  ProgressPrinter printer(a.quiet);
  options.progress = [&printer](const SweepProgress& p) { printer(p); };
  options.cell_progress = [&printer](std::size_t cell, const RunProgress& p) {
    printer.cell(cell, p);
  };
  const auto started = std::chrono::steady_clock::now();
  SweepOutcome outcome;
  {
    const SweepLogging logging;
    outcome = run_sweep(spec, options);
  }
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - started;
  return report_sweep(a, options, outcome, wall.count(),
                      fmt::format("{} worker{}", options.jobs, options.jobs == 1 ? "" : "s"));
}

// `mpirun -n N schedlab sweep ...`: the same command, its steps split between the ranks.
MpiSweepCommand mpi_sweep_command(const std::shared_ptr<SweepArgs>& a) {
  MpiSweepCommand command;
  command.local = [a] { return run_sweep_command(*a); };
  command.jobs = worker_threads(a->jobs);
  command.prepare = [a](int ranks, SweepRunOptions& options) {
    if (!a->merge.empty() || a->emit_slurm)
      throw ConfigError(fmt::format(
          "--merge and --emit-slurm run as one process, not on the {} ranks of an MPI job: run "
          "them without mpirun",
          ranks));
    SweepSpec spec = checked_spec(*a);
    options = run_options_of(*a);
    auto printer = std::make_shared<ProgressPrinter>(a->quiet);
    options.progress = [printer](const SweepProgress& p) { (*printer)(p); };
    return spec;
  };
  command.report = [a](const SweepRunOptions& options, const SweepOutcome& outcome, double wall_s,
                       const std::string& workers) {
    return report_sweep(*a, options, outcome, wall_s, workers);
  };
  return command;
}

}  // namespace

Action add_sweep_command(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand("sweep",
                                     "run policies x params x traces x clusters x load scales x "
                                     "seeds in parallel (docs/workflows.md)");
  cmd->add_option("spec", a->spec_file,
                  "sweep spec JSON; flags below replace its axes and options");
  cmd->add_option("-o,--out", a->out_dir,
                  "output directory (results.csv, results.jsonl, aggregate.*, cells/)")
      ->required()
      ->check(non_empty_output_path());
  cmd->add_option("-j,--jobs", a->jobs, "cells run in parallel (0: one per core)")
      ->capture_default_str();
  cmd->add_flag("--rerun", a->rerun, "run every cell again instead of resuming finished ones");
  cmd->add_flag("-q,--quiet", a->quiet, "no progress output");
  cmd->add_option("-p,--policy", a->policies, "policy (repeatable)");
  cmd->add_option("--param", a->params,
                  "POLICY:KEY=V1[,V2...]: parameter values to sweep (repeatable)");
  cmd->add_option("-t,--trace", a->traces, "trace file (repeatable)");
  cmd->add_option("--format", a->format, "trace format of --trace files")->capture_default_str();
  cmd->add_option("-c,--cluster", a->clusters, "cluster spec (repeatable)");
  cmd->add_option("--load", a->loads, "load scales, e.g. 0.5,1,2 (arrival-time compression)")
      ->delimiter(',');
  cmd->add_option("--seeds", a->seeds,
                  "seeds, e.g. 1,2,3 or 1-5 (a range A-B holds at most 100000 seeds)")
      ->delimiter(',');
  add_run_option_flags(*cmd, a->options, true);
  cmd->add_flag("--reproducible", a->reproducible,
                "write engine.wall_s as 0 (byte-identical reruns)");
  cmd->add_option("--shard", a->shard,
                  "K/N: run only shard K of N (cells with index % N == K-1), for batch arrays");
  cmd->add_option("--merge", a->merge,
                  "DIR...: join the output directories of shards 1/N..N/N into -o")
      ->expected(1, -1);
  cmd->add_flag("--emit-slurm", a->emit_slurm,
                "write spec.json, sweep.sbatch (a Slurm array over shards) and merge.sbatch into "
                "-o instead of running");
  cmd->add_option("--shards", a->shards,
                  "array tasks of --emit-slurm (default: one per cell, at most 100)");
  cmd->add_option("--time", a->time_limit, "Slurm --time of each array task (--emit-slurm)");
  cmd->add_option("--partition", a->partition, "Slurm --partition (--emit-slurm)");
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    const MpiLaunch launch = mpi_launch_from_environment();
    if (!launch.launched) return run_sweep_command(*a);
    const SweepLogging logging;
    return run_sweep_on_mpi_ranks(launch, mpi_sweep_command(a));
  };
}

}  // namespace schedlab::cli
