#include "support/builders.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "schedlab/csv.hpp"
#include "support/invariant_observer.hpp"

namespace schedlab::testing {

Trace trace_from_csv(const std::string& csv, const std::string& name) {
  return read_native_trace(name, csv);
}

SimulationResult run_checked(const Trace& trace, const std::string& cluster_spec,
                             const std::string& policy,
                             const std::map<std::string, std::string>& params, RunOptions options) {
  InvariantObserver invariants;
  SimulationRequest request;
  request.policy = policy;
  request.params = params;
  request.options = std::move(options);
  request.reproducible = true;
  return simulate(trace, parse_cluster_spec(cluster_spec), request, {&invariants});
}

std::vector<std::string> jobs_column(const std::string& jobs_csv, const std::string& name) {
  CsvReader reader(jobs_csv, "jobs.csv");
  std::vector<std::string_view> fields;
  reader.next_row(fields);
  const CsvHeader header(fields);
  const auto index = header.find(name);
  if (!index) throw std::runtime_error("jobs.csv has no column " + name);
  std::vector<std::string> out;
  while (reader.next_row(fields)) out.emplace_back(fields.at(*index));
  return out;
}

std::map<std::string, double> start_times(const std::string& jobs_csv) {
  const auto ids = jobs_column(jobs_csv, "job_id");
  const auto starts = jobs_column(jobs_csv, "starting_time");
  std::map<std::string, double> out;
  for (std::size_t i = 0; i < ids.size(); ++i)
    out[ids[i]] = starts[i].empty() ? -1.0 : std::stod(starts[i]);
  return out;
}

std::string fresh_temp_dir(const std::string& tag) {
  static std::atomic<int> counter{0};
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("schedlab-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

CommandResult run_command(const std::string& command) {
  const std::string dir = fresh_temp_dir("cmd");
  const std::string out_path = dir + "/stdout";
  const std::string err_path = dir + "/stderr";
  const std::string full = command + " >" + out_path + " 2>" + err_path + " </dev/null";
  const int status = std::system(full.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(out_path);
  result.err = read_text(err_path);
  std::filesystem::remove_all(dir);
  return result;
}

}  // namespace schedlab::testing
