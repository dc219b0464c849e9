// The report's tenant charts (docs/tenants.md): GPUs held by each tenant over time, stacked,
// for each run that reports tenants; each tenant's GPUs against its entitlement; and mean and
// 95th percentile waits by tenant, runs side by side. A tenant has one colour in every chart
// (tenant_color by its rank over all runs).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedlab::report {

// One run's tenant data: its summary's `tenants` object and the gpus.<tenant> columns of its
// timeseries.csv.
struct TenantRun {
  std::string label;
  std::string color;
  nlohmann::ordered_json tenants;         // summary.json "tenants" (null when absent)
  std::vector<double> time_s;             // timeseries rows
  std::vector<std::string> names;         // tenants of the gpus.<tenant> columns, in column order
  std::vector<std::vector<double>> gpus;  // [tenant][row]
  double cluster_gpus = 0;                // summary.json cluster.gpus (0: unknown)
};

struct TenantFigure {
  std::string title;
  std::string caption;
  std::string svg;
};

// Tenants are ranked by their GPU-time summed over the runs' time series (the integral of their
// gpus.<tenant> columns; ties by name). Stacked GPUs by tenant for up to `max_runs` runs with
// tenant columns (the first seven tenants by rank, the rest as "others"); then, for each of
// those seven with an entitlement (summary tenants.T.entitled_share x cluster.gpus), its GPUs
// per run over time with the entitlement as a dashed line in the tenant's colour; then the wait
// bars for the runs with a `tenants` summary (the twelve tenants with the most jobs). Empty when
// no run reports tenants.
std::vector<TenantFigure> tenant_figures(const std::vector<TenantRun>& runs, std::size_t max_runs);

}  // namespace schedlab::report
