// The visual report: one self-contained HTML file (inline CSS and SVG, no network at view
// time) from run outputs or sweep results.
//
// Inputs: run output directories (summary.json, timeseries.csv, jobs.csv, attempts.csv) or
// their summary.json files, one per policy to compare; `compare -o` directories (every policy
// they hold); or one sweep output directory (or its results.jsonl). Every output directory
// must be a complete output set (its .schedlab-complete marker).
// Contents: a verdict table (each policy's change per job class against a reference policy,
// red where a class pays), utilization and queue length over the busy window per policy, a
// Gantt chart per run (GPU rows by node, attempts coloured by tenant, over one time window), CDFs
// of wait and JCT, bars of the summary metrics, tables by job class, energy and idle GPU-hours,
// restarts and lost work, a table of every numeric metric; for a sweep also each metric against
// load with 95% confidence bands across seeds. Line charts name their series at the line ends when
// those are clear of each other, else in a legend (never with leader lines); every axis has its
// unit. The output is deterministic: the same inputs give the same bytes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedlab/job_classes.hpp"

namespace schedlab {

// The verdict table and the job-class tables (docs/workflows.md#report).
struct VerdictSettings {
  JobClassBounds bounds;               // --size-classes, --duration-classes
  std::string metric = "wait_s.mean";  // --verdict-metric: one of job_class_metric_keys()
  double threshold_pct = 5;            // --verdict-threshold: a class pays beyond it
};

struct ReportOptions {
  std::string title = "schedlab report";
  // Sweeps: the load scale whose cells feed the per-policy charts (default: the one closest to
  // 1). Must be one of the sweep's load scales.
  std::optional<double> load_scale;
  // The Gantt charts' time window, in seconds of simulated time (unset ends: the runs' first
  // start, last end). Neither set: the busiest 24 h of the runs shown together.
  std::optional<double> from_s;
  std::optional<double> to_s;
  // The run the verdict compares against: a run's label or policy (default: fifo when a run's
  // policy is fifo, else the first run). A name no run has is a ConfigError.
  std::optional<std::string> reference;
  VerdictSettings verdict;
};

struct Report {
  std::string html;
  std::size_t charts = 0;          // <svg class="chart"> elements in the page
  std::vector<std::string> notes;  // what was left out and why (e.g. a missing jobs.csv)
};

// Throws ConfigError "PATH: what is wrong" for unreadable or malformed inputs, mixed kinds or
// an empty input list.
Report build_report(const std::vector<std::string>& inputs, const ReportOptions& options = {});

}  // namespace schedlab
