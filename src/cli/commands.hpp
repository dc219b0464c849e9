// Subcommands of the schedlab command line. Each add_* registers its CLI11 subcommand and
// returns the action to run when it was chosen; the action returns the process exit code.
#pragma once

#include <cstdio>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "schedlab/error_kind.hpp"
#include "schedlab/job.hpp"
#include "schedlab/regression_check.hpp"
#include "schedlab/run_option_table.hpp"
#include "schedlab/run_options.hpp"

namespace schedlab::cli {

using Action = std::function<int()>;

// The check of every -o/--out: an empty path names no output (exit 2 before anything runs).
inline CLI::Validator non_empty_output_path() {
  return CLI::Validator(
      [](const std::string& path) {
        return path.empty() ? std::string("empty path; give the file or directory to write")
                            : std::string();
      },
      "");
}

// Options shared by every command that runs simulations. The run options (the flags of
// run_option_table()) are kept as given and validated by to_run_options.
struct SimulationOptions {
  std::string trace;
  std::string format = "auto";
  std::string cluster;
  bool reproducible = false;
  std::vector<std::string> filters;             // --filter KEY=VALUE (schedlab/trace_filter.hpp)
  std::map<std::string, RunOptionValue> given;  // run option key -> value from its flag
};
// Registers the flags of every run option on `command`: those with `in_spec` only when
// `spec_options_only` (the sweep command, whose seeds are an axis).
void add_run_option_flags(CLI::App& command, std::map<std::string, RunOptionValue>& given,
                          bool spec_options_only);
void add_simulation_options(CLI::App& command, SimulationOptions& options);
// Validates and converts; throws ConfigError.
RunOptions to_run_options(const SimulationOptions& options);

Action add_run_command(CLI::App& app);
Action add_policies_command(CLI::App& app);
Action add_validate_command(CLI::App& app);
Action add_convert_command(CLI::App& app);
Action add_gen_command(CLI::App& app);

// Trace input for the commands (trace_input.cpp): parses the filters (ConfigError), reads the
// trace, applies the filters, and notes on stderr the detected format and the skipped jobs.
void add_filter_option(CLI::App& command, std::vector<std::string>& filters);
schedlab::Trace load_trace(const std::string& path, const std::string& format,
                           const std::vector<std::string>& filters);
Action add_sweep_command(CLI::App& app);
Action add_leaderboard_command(CLI::App& app);
Action add_inflate_command(CLI::App& app);
// A spec file (sweep spec, leaderboard suite): its JSON object, and the directory its relative
// paths are resolved against ("." for a file in the working directory). Throws ConfigError
// "PATH: not valid JSON: ..." / "PATH: expected a JSON object".
struct SpecFile {
  nlohmann::ordered_json json;
  std::string base_dir;
};
SpecFile read_spec_file(const std::string& path);
// Rethrows `failure` (a sweep cell's exception) with `where` before its message, keeping its
// kind and so the exit code main gives it.
[[noreturn]] void rethrow_with_context(const std::exception_ptr& failure, const std::string& where);
Action add_report_command(CLI::App& app);
Action add_check_command(CLI::App& app);
Action add_compare_command(CLI::App& app);
Action add_check_policy_command(CLI::App& app);

// `run --baseline BASE.json [--tolerance ...]` (check_command.cpp): register the options,
// load and validate the baseline before the run (throws ConfigError), then compare the run's
// summary, print the check table on `out` and return kExitOk or kExitRegression.
struct BaselineGate {
  std::string baseline;
  std::vector<std::string> tolerances;
  std::shared_ptr<const CheckInput> loaded;
};
void add_baseline_options(CLI::App& command, BaselineGate& gate);
void prepare_baseline_gate(BaselineGate& gate);
// The run's summary compared with the gate's baseline, once (nothing without a baseline).
// Throws ConfigError (exit 2) when the run was set up differently from the baseline; called
// before the run's outputs are written, so that a refused comparison leaves none.
struct BaselineComparison {
  CheckInput current;
  CheckReport report;
};
std::optional<BaselineComparison> compare_with_baseline(const BaselineGate& gate,
                                                        const nlohmann::ordered_json& summary);
// Prints the comparison's check table on `out`: kExitOk, or kExitRegression (kExitOk without a
// comparison).
int report_baseline_gate(const BaselineGate& gate,
                         const std::optional<BaselineComparison>& comparison, std::FILE* out);

}  // namespace schedlab::cli
