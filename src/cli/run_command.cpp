#include <cstdio>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/output.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/trace.hpp"
#include "stopwatch.hpp"
#include "terminal_status.hpp"

namespace schedlab::cli {

namespace {

struct RunArgs {
  SimulationOptions sim;
  std::string policy = "fifo";
  std::vector<std::string> params;
  bool json = false;
  bool quiet = false;
  bool isolated_baseline = false;
  std::string out_dir;
  BaselineGate gate;
};

}  // namespace

Action add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd =
      app.add_subcommand("run", "replay a trace with one policy and report its metrics");
  add_simulation_options(*cmd, args->sim);
  cmd->add_option("-p,--policy", args->policy, "policy name (see 'schedlab policies')")
      ->capture_default_str();
  cmd->add_option("--param", args->params, "policy parameter key=value (repeatable)");
  cmd->add_flag("--json", args->json, "print summary.json on stdout instead of the table");
  cmd->add_option(
         "-o,--out", args->out_dir,
         "write summary.json, jobs.csv, attempts.csv, timeseries.csv (and tenants.csv) here")
      ->check(non_empty_output_path());
  cmd->add_flag("-q,--quiet", args->quiet, "no progress line on a terminal's stderr");
  cmd->add_flag("--isolated-baseline", args->isolated_baseline,
                "also run each tenant alone on its entitled partition: finish-time fairness");
  add_baseline_options(*cmd, args->gate);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    SimulationRequest request;
    request.policy = args->policy;
    request.params = parse_param_list(args->params);
    request.options = to_run_options(args->sim);
    request.reproducible = args->sim.reproducible;
    request.files = !args->out_dir.empty();
    request.isolated_baseline = args->isolated_baseline;
    const ClusterSpec cluster = parse_cluster_spec(args->sim.cluster);
    // Policy and placement names are checked before the trace is read.
    make_policy(request.policy, request.params);
    make_placement(request.options.placement);
    prepare_baseline_gate(args->gate);
    Stopwatch stopwatch;
    const Trace trace = load_trace(args->sim.trace, args->sim.format, args->sim.filters);
    spdlog::info("read {} jobs in {:.3f} s", trace.jobs.size(), stopwatch.lap_s());
    // Inputs checked: the output directory is this run's until it ends.
    std::optional<OutputDirLock> lock;
    if (request.files) lock.emplace(args->out_dir);
    TerminalStatus status(args->quiet);
    if (status.enabled())
      request.progress = [&status](const RunProgress& p) {
        if (p.done)
          status.clear();
        else
          status.show(format_run_progress(p));
      };
    const SimulationResult result = simulate(trace, cluster, request);
    status.clear();
    spdlog::info("simulated {} events in {:.3f} s", result.engine.events, stopwatch.lap_s());
    const std::string summary_text = json_text(result.summary, 2) + "\n";
    const auto baseline_comparison = compare_with_baseline(args->gate, result.summary);
    if (!args->out_dir.empty()) {
      write_files_atomically(args->out_dir, run_output_files(result, summary_text));
      spdlog::info("wrote outputs to {} in {:.3f} s", args->out_dir, stopwatch.lap_s());
    }
    const std::string shown = args->json ? summary_text : format_summary_table(result.summary);
    std::fwrite(shown.data(), 1, shown.size(), stdout);
    return report_baseline_gate(args->gate, baseline_comparison, args->json ? stderr : stdout);
  };
}

}  // namespace schedlab::cli
