// The report's inputs: run output directories, compare directories and sweep results read into
// the runs the report draws. Every reading error is an InputError naming the file (and line).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "report_classes.hpp"
#include "report_gantt.hpp"
#include "report_window.hpp"
#include "schedlab/report.hpp"
#include "schedlab/report_svg.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/sweep.hpp"

namespace schedlab::report {

// One run to draw: a run output directory, or the representative cell of a sweep variant.
struct RunData {
  std::string label;
  std::string source;
  std::string color;
  nlohmann::ordered_json summary;
  std::vector<SeriesRow> series;
  bool has_series = false;
  std::vector<std::string> tenant_names;         // gpus.<tenant> columns of timeseries.csv
  std::vector<std::vector<double>> tenant_gpus;  // [tenant][row]
  std::vector<double> waits_s;
  std::vector<double> jcts_s;
  bool has_jobs = false;
  std::unordered_map<std::string, std::string> tenants;  // job id -> tenant (jobs.csv)
  std::optional<std::vector<ReportJob>> class_jobs;      // finished jobs, for the job classes
  std::optional<GanttRun> attempts;                      // attempts.csv, for the Gantt chart
  const SweepGroup* group = nullptr;  // sweeps: across-seed statistics for the bars
};

// Sweep results (results.jsonl) with their groups and the axes' values, for the report.
struct SweepData {
  std::string results_path;
  std::vector<nlohmann::ordered_json> rows;
  std::vector<SweepGroup> groups;
  std::vector<std::string> variants, traces, clusters;
  std::vector<double> loads;
  std::vector<std::uint64_t> seeds;
  double shown_load = 1.0;
};

// Reads summary.json and, when present, timeseries.csv and jobs.csv of one run directory.
RunData read_run_dir(const std::filesystem::path& dir, const std::string& source,
                     std::vector<std::string>& notes);

// A `compare -o` directory: compare.json names the policies, each with its run outputs in
// DIR/<policy>/, labelled as compare labels them ("priority(blocking=false)").
std::vector<RunData> read_compare_dir(const std::filesystem::path& dir,
                                      std::vector<std::string>& notes);

// Whether `path` is sweep results (a .jsonl file or a directory holding results.jsonl).
std::optional<std::string> sweep_results_path(const std::string& path);

// Reads the sweep results at `results_path` (sweep_results_path); `options` choose the load shown.
SweepData read_sweep(const std::string& results_path, const ReportOptions& options);

// The representative cell of each variant: first trace, first cluster, the shown load, the
// first seed that succeeded.
std::vector<RunData> sweep_runs(const SweepData& sweep, std::vector<std::string>& notes);

// Appends `value` to `list` unless it holds it already (first-seen order).
template <typename T>
void add_unique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace schedlab::report
