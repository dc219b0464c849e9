// Helpers to build traces, clusters and runs in tests.
#pragma once

#include <string>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/job.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/trace.hpp"

namespace schedlab::testing {

// Parses native CSV text (header included) as a trace named `name`.
Trace trace_from_csv(const std::string& csv, const std::string& name = "test.csv");

// Runs a policy with the invariant observer attached; throws on any violation.
SimulationResult run_checked(const Trace& trace, const std::string& cluster_spec,
                             const std::string& policy = "fifo",
                             const std::map<std::string, std::string>& params = {},
                             RunOptions options = {});

// Column `name` of jobs.csv, one string per job row in trace order.
std::vector<std::string> jobs_column(const std::string& jobs_csv, const std::string& name);
// starting_time of each job (seconds, as in jobs.csv), keyed by job id.
std::map<std::string, double> start_times(const std::string& jobs_csv);

// Path of a fresh empty directory under the system temp dir.
std::string fresh_temp_dir(const std::string& tag);

// Runs a shell command, capturing stdout and stderr; returns the exit code.
struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
CommandResult run_command(const std::string& command);
std::string read_text(const std::string& path);

}  // namespace schedlab::testing
