#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/carbon.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/failure_model.hpp"

namespace schedlab::cli {

void add_simulation_options(CLI::App& command, SimulationOptions& o) {
  command.add_option("-t,--trace", o.trace, "job trace file (.gz is read directly)")->required();
  command.add_option("--format", o.format, "trace format (auto decides from the content)")
      ->capture_default_str();
  command
      .add_option("-c,--cluster", o.cluster,
                  "cluster: NODESxGPUS[:TYPE][,...] (e.g. 64x8:A100,16x8:H100) or a JSON file")
      ->required();
  command.add_option("--placement", o.placement, "placement strategy")->capture_default_str();
  command
      .add_option("--estimate", o.estimate,
                  "walltime for jobs without one: exact | factor:X | column")
      ->capture_default_str();
  command.add_flag("--no-walltime-kill", o.no_walltime_kill,
                   "let jobs run past their walltime instead of killing them");
  command
      .add_option("--checkpoint-interval", o.checkpoint_interval_s,
                  "seconds of work between checkpoints (0: checkpoint at preemption)")
      ->capture_default_str();
  command
      .add_option("--restart-overhead", o.restart_overhead_s,
                  "seconds charged at each restart before progress resumes")
      ->capture_default_str();
  command.add_option("--interval", o.interval_s, "timeseries.csv row width in seconds")
      ->capture_default_str();
  command.add_option("--seed", o.seed, "seed of the run's random source")->capture_default_str();
  command.add_flag("--reproducible", o.reproducible,
                   "write engine.wall_s as 0 so repeated runs are byte-identical");
  add_filter_option(command, o.filters);
  // Cluster models (docs/cluster.md).
  command
      .add_option(
          "--speed-model", o.speed_model,
          "placement-dependent speed: off | gpu (GPU type speed) | comm (link slowdown) | full")
      ->capture_default_str();
  command.add_option("--failures", o.failures,
                     "node failures: rate=R[,repair=H][,seed=S] (R per 1000 node-days, H hours)");
  command.add_option("--failure-trace", o.failure_trace,
                     "node failures from a CSV file: node, down_time, up_time");
  command.add_flag("--node-power", o.node_power,
                   "count node base power (on) and off power in energy");
  command.add_option_function<double>(
      "--pue", [&o](double value) { o.pue = value; },
      "facility power / IT power, 1..10 (default: the cluster spec's, else 1.0)");
  command
      .add_option("--power-off-idle", o.power_off_idle_s,
                  "turn a node off after this many seconds idle (0: never)")
      ->capture_default_str();
  command.add_option("--boot-time", o.boot_time_s, "seconds a node takes to power on")
      ->capture_default_str();
  command.add_option("--carbon", o.carbon,
                     "grid carbon intensity CSV (time, gco2_per_kwh) for emissions_kg");
}

RunOptions to_run_options(const SimulationOptions& o) {
  RunOptions run;
  run.placement = o.placement;
  parse_estimate(o.estimate, run);
  run.walltime_kill = !o.no_walltime_kill;
  auto ms = [](double seconds, const char* flag, bool allow_zero) {
    try {
      return option_seconds_ms(seconds, allow_zero);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("{} {}: {}", flag, seconds, e.what()));
    }
  };
  run.checkpoint_interval_ms = ms(o.checkpoint_interval_s, "--checkpoint-interval", true);
  run.restart_overhead_ms = ms(o.restart_overhead_s, "--restart-overhead", true);
  run.timeseries_interval_ms = ms(o.interval_s, "--interval", false);
  run.seed = o.seed;
  run.speed_model = parse_speed_model(o.speed_model);
  if (!o.failures.empty()) parse_failures_option(o.failures, run);
  if (!o.failure_trace.empty()) {
    if (!o.failures.empty()) throw ConfigError("--failures and --failure-trace cannot be combined");
    run.failure_trace = std::make_shared<const FailureTrace>(load_failure_trace(o.failure_trace));
  }
  run.node_power = o.node_power;
  if (o.pue && !(*o.pue >= 1.0 && *o.pue <= 10.0))
    throw ConfigError(fmt::format("--pue {}: expected a number in 1..10", *o.pue));
  run.pue = o.pue.value_or(0.0);
  run.power_off_idle_ms = ms(o.power_off_idle_s, "--power-off-idle", true);
  run.boot_time_ms = ms(o.boot_time_s, "--boot-time", false);
  if (!o.carbon.empty())
    run.carbon = std::make_shared<const CarbonSeries>(load_carbon_series(o.carbon));
  return run;
}

}  // namespace schedlab::cli
