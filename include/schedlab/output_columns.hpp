// The columns of jobs.csv and attempts.csv: one table each, in file order, with each column's
// name, unit, meaning and the function that writes its cell. The writers (MetricsCollector,
// AttemptLog) render header and rows from these tables only, and docs/metrics.md lists the
// same rows (a test compares).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "schedlab/cluster.hpp"
#include "schedlab/job.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

// What one jobs.csv row shows: a job of the run after it ended (or was rejected).
struct JobRow {
  const Trace& trace;
  const Cluster& cluster;
  const JobSpec& spec;
  const JobState& state;
  double energy_j;  // the job's energy as the run's energy model counts it
};

struct JobColumn {
  std::string_view name;
  std::string_view unit;  // "s", "GPUs", "J", "ratio", "count", "GPU-s", or "" (text, ids)
  std::string_view meaning;
  // Written only when cluster models are active (cluster_models_active()).
  bool cluster_models_only;
  void (*write)(std::string& out, const JobRow& row);  // the cell, without separators
};

// Every column of jobs.csv, in file order.
std::span<const JobColumn> job_columns();

// What one attempts.csv row shows: one attempt of a job, from its start to its end.
struct AttemptRow {
  const Cluster& cluster;
  const JobSpec& spec;
  std::uint32_t number;  // 1, 2, ...
  TimeMs start_ms;
  TimeMs end_ms;
  const Placement& placement;
  std::string_view end_reason;  // completed, preempted, failed or walltime
};

struct AttemptColumn {
  std::string_view name;
  std::string_view unit;
  std::string_view meaning;
  void (*write)(std::string& out, const AttemptRow& row);
};

// Every column of attempts.csv, in file order.
std::span<const AttemptColumn> attempt_columns();

// The header line of jobs.csv (with or without the cluster models' columns) and of
// attempts.csv, each ending in '\n'; and one row of each, appended to `out` with its '\n'.
std::string job_csv_header(bool cluster_models);
void append_job_row(std::string& out, const JobRow& row, bool cluster_models);
std::string attempt_csv_header();
void append_attempt_row(std::string& out, const AttemptRow& row);

}  // namespace schedlab
