#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"

namespace schedlab::cli {

void add_simulation_options(CLI::App& command, SimulationOptions& o) {
  command.add_option("-t,--trace", o.trace, "job trace file (.gz is read directly)")->required();
  command.add_option("--format", o.format, "trace format (auto decides from the content)")
      ->capture_default_str();
  command.add_option("-c,--cluster", o.cluster,
                     "cluster: NODESxGPUS[:TYPE][,...] (e.g. 64x8:A100,16x8:H100) or a JSON file")
      ->required();
  command.add_option("--placement", o.placement, "placement strategy")->capture_default_str();
  command.add_option("--estimate", o.estimate,
                     "walltime for jobs without one: exact | factor:X | column")
      ->capture_default_str();
  command.add_flag("--no-walltime-kill", o.no_walltime_kill,
                   "let jobs run past their walltime instead of killing them");
  command.add_option("--checkpoint-interval", o.checkpoint_interval_s,
                     "seconds of work between checkpoints (0: checkpoint at preemption)")
      ->capture_default_str();
  command.add_option("--restart-overhead", o.restart_overhead_s,
                     "seconds charged at each restart before progress resumes")
      ->capture_default_str();
  command.add_option("--interval", o.interval_s, "timeseries.csv row width in seconds")
      ->capture_default_str();
  command.add_option("--seed", o.seed, "seed of the run's random source")->capture_default_str();
  command.add_flag("--reproducible", o.reproducible,
                   "write engine.wall_s as 0 so repeated runs are byte-identical");
  add_filter_option(command, o.filters);
}

RunOptions to_run_options(const SimulationOptions& o) {
  RunOptions run;
  run.placement = o.placement;
  parse_estimate(o.estimate, run);
  run.walltime_kill = !o.no_walltime_kill;
  auto ms = [](double seconds, const char* flag, bool allow_zero) {
    const auto value = seconds_to_ms(seconds);
    if (!value || *value < 0 || (!allow_zero && *value == 0))
      throw ConfigError(fmt::format("{} {}: expected seconds {}", flag, seconds, allow_zero ? ">= 0" : "> 0"));
    return *value;
  };
  run.checkpoint_interval_ms = ms(o.checkpoint_interval_s, "--checkpoint-interval", true);
  run.restart_overhead_ms = ms(o.restart_overhead_s, "--restart-overhead", true);
  run.timeseries_interval_ms = ms(o.interval_s, "--interval", false);
  run.seed = o.seed;
  return run;
}

}  // namespace schedlab::cli
