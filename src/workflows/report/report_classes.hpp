// The report's job classes (docs/workflows.md#report): who wins and who pays. The verdict table
// (each policy's change per GPU-count and work class against a reference policy, red where a
// class pays) and the per-class tables (size, work, tenant, user), from each run's jobs.csv,
// classed by job_class_json (job_classes.hpp) exactly as `compare --by` classes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedlab/job_classes.hpp"
#include "schedlab/report.hpp"
#include "schedlab/types.hpp"

namespace schedlab::report {

// One finished job of jobs.csv.
struct ReportJob {
  std::string id;
  std::int64_t gpus = 0;
  // The trace's duration, when jobs.csv shows it exactly: a job that completed successfully,
  // never interrupted (restarts and preemptions 0) and at full speed (no slowdown_factor, or
  // 1) ran for exactly its work, so execution_time is it. Unset otherwise (see resolve_work).
  std::optional<TimeMs> work_ms;
  std::string tenant;
  std::string user;
  double wait_s = 0;
  double queued_s = 0;
  double jct_s = 0;
  double bounded_slowdown = 0;
};

// A run as the classes see it: its label, its policy (summary.json "policy", "" if none) and its
// finished jobs (nullopt: jobs.csv is missing or lacks a column the classes need).
struct ClassRun {
  std::string label;
  std::string policy;
  std::optional<std::vector<ReportJob>> jobs;
};

// Work is a property of the trace, the same in every run: a job whose work its own run does not
// show takes it from the first run (in input order) that does. Returns the number of jobs whose
// work no run shows (they are left out of the work classes only).
std::size_t resolve_work(std::vector<ClassRun>& runs);

// The reference run: `name` matches a run's label, else the first run whose policy is `name`;
// without a name, the first run whose policy is fifo, else the first run. Throws ConfigError
// "--reference NAME: no run of that name or policy (runs: a, b)" when `name` matches none.
std::size_t reference_run(const std::vector<ClassRun>& runs,
                          const std::optional<std::string>& name);

// Throws ConfigError naming --verdict-metric or --verdict-threshold when out of range.
void check_verdict_options(const VerdictSettings& options);

// The verdict table as HTML: a row per run other than the reference, a column for all jobs,
// then each GPU-count class and each work class that holds jobs in some run. A cell is the
// relative change (value - reference) / reference of the metric, "+12.3%" (one decimal); class
// "pays" (red) when above +threshold, "gains" (green) when below -threshold, "same" otherwise;
// "from 0" (pays) when the reference is 0 and the value is not; "-" (class "none") when either
// run has no finished job in the class. Empty when fewer than two runs have jobs.
std::string verdict_table(const std::vector<ClassRun>& runs, std::size_t reference,
                          const VerdictSettings& options);

// The per-class tables as HTML: by size and by work, then by tenant and by user when some job
// has one; each class a row per run with its jobs and every job_class_metric_keys() value. The
// tenant and user tables show at most kMaxNamedClasses classes: those with the most jobs (the
// largest count in any run; ties by name), in name order; a line under the table counts the
// rest.
inline constexpr std::size_t kMaxNamedClasses = 20;
std::string class_tables(const std::vector<ClassRun>& runs, const JobClassBounds& bounds);

// CSS of the two tables.
extern const char* const kClassStyle;

}  // namespace schedlab::report
