#include "policies/tenant_support.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>

#include "schedlab/tenants.hpp"
#include "support/builders.hpp"

namespace schedlab::testing {

RunOptions with_tenants(const std::string& tenants_json) {
  const std::string path = fresh_temp_dir("tenants") + "/tenants.json";
  std::ofstream(path) << tenants_json;
  RunOptions options;
  options.tenants = std::make_shared<const TenantsSpec>(load_tenants_spec(path));
  return options;
}

namespace {

TimeMs seconds_ms(const std::string& text) {
  return text.empty() ? -1 : static_cast<TimeMs>(std::llround(std::stod(text) * 1000));
}

}  // namespace

std::map<std::string, JobRow> job_rows(const SimulationResult& result) {
  const auto ids = jobs_column(result.jobs_csv, "job_id");
  const auto tenants = jobs_column(result.jobs_csv, "tenant");
  const auto gpus = jobs_column(result.jobs_csv, "requested_number_of_resources");
  const auto submits = jobs_column(result.jobs_csv, "submission_time");
  const auto starts = jobs_column(result.jobs_csv, "starting_time");
  const auto finishes = jobs_column(result.jobs_csv, "finish_time");
  std::map<std::string, JobRow> out;
  for (std::size_t i = 0; i < ids.size(); ++i)
    out[ids[i]] = {tenants[i], std::stoll(gpus[i]), seconds_ms(submits[i]), seconds_ms(starts[i]),
                   seconds_ms(finishes[i])};
  return out;
}

std::map<std::string, double> gpu_seconds_until(const SimulationResult& result, TimeMs until_ms) {
  std::map<std::string, double> out;
  for (const auto& [id, row] : job_rows(result)) {
    if (row.start_ms < 0 || row.start_ms >= until_ms) continue;
    const TimeMs end_ms = row.finish_ms < 0 ? until_ms : std::min(row.finish_ms, until_ms);
    out[row.tenant] +=
        static_cast<double>(row.gpus) * static_cast<double>(end_ms - row.start_ms) / 1000.0;
  }
  return out;
}

}  // namespace schedlab::testing
