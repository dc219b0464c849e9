// MetricsCollector: an observer that integrates the piecewise-constant cluster state exactly
// between instants and renders summary.json, jobs.csv and timeseries.csv.
// Definitions of every metric: docs/metrics.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/engine_stats.hpp"
#include "schedlab/job_classes.hpp"
#include "schedlab/observer.hpp"

namespace schedlab {

// What the summary says about the run itself.
struct RunInfo {
  std::string policy;
  // Every parameter of the policy, defaults included, as given or declared (text).
  std::map<std::string, std::string> policy_params;
  std::string trace;
  std::string trace_fingerprint;  // trace_fingerprint.hpp
  EngineStats engine;
  double wall_s = 0.0;
};

// Percentile by linear interpolation between closest ranks (numpy's default), p in [0, 100].
// `sorted` must be ascending and non-empty.
double percentile(const std::vector<double>& sorted, double p);

// A finished job's bounded slowdown: max(1, turnaround / max(work, 10 s)), its work being the
// trace's duration (at reference speed), so lost work and slow placements count against it;
// docs/metrics.md.
double bounded_slowdown(const JobSpec& spec, const JobState& state);
// A finished job's time queued: turnaround minus the time it held GPUs (its first wait plus every
// wait after a requeue).
TimeMs queued_ms(const JobSpec& spec, const JobState& state);
// GPU-ms a finished job held that produced no kept work: every attempt of a walltime-killed job,
// else its lost work (redone after interruptions, restart overhead).
double wasted_gpu_ms(const JobSpec& spec, const JobState& state);

// append_fixed for a value of a run's outputs: a non-finite value is a broken invariant
// (InvariantError, exit 4), never written as inf or nan.
void append_metric(std::string& out, double value, int decimals);
// Throws InvariantError naming the key (after `where`) of the first number in `doc` that is not
// finite: a summary never writes null for a metric.
void require_finite_numbers(const nlohmann::ordered_json& doc, const std::string& where);

// Columns another observer adds to timeseries.csv (per-tenant GPUs, for instance).
class SeriesColumns {
 public:
  virtual ~SeriesColumns() = default;
  // Appends ",name1,name2..." to the header line.
  virtual void append_header(std::string& out) const = 0;
  // Appends ",value1,value2..." for the row starting at `start_ms` that covers `covered_ms` of
  // run time. Rows are asked for in ascending order, each once.
  virtual void append_row(std::string& out, TimeMs start_ms, TimeMs covered_ms) const = 0;
};

class MetricsCollector : public Observer {
 public:
  // keep_series: build the time series that timeseries_csv() renders; without it the summary
  // and jobs.csv are the same and timeseries_csv() is empty.
  explicit MetricsCollector(bool keep_series = true) : keep_series_(keep_series) {}

  void on_begin(const RunView& ctx) override;
  void on_advance(const RunView& ctx, TimeMs from_ms, TimeMs to_ms) override;
  void on_job(const RunView& ctx, JobIndex job, JobTransition what) override;
  void on_end(const RunView& ctx) override;

  // Render after run() and before the Engine is destroyed (they read its job states).
  // Key order is fixed; floats are rounded to fixed decimals.
  nlohmann::ordered_json summary_json(const RunInfo& info) const;
  std::string jobs_csv() const;
  std::string timeseries_csv() const;
  // Every finished (not rejected) job, for job_class_json (its names view the trace's strings).
  std::vector<ClassedJob> classed_jobs() const;
  // timeseries.csv gains these columns after its own (the object must outlive the rendering).
  // Columns are appended in the order they were added.
  void add_series_columns(const SeriesColumns& columns) { extra_columns_.push_back(&columns); }

  // Integrals over [first submit, last finish], exposed for tests.
  struct Totals {
    TimeMs span_ms = 0;
    double busy_gpu_ms = 0;
    double capacity_gpu_ms = 0;
    double idle_while_waiting_gpu_ms = 0;
    double energy_busy_j = 0;
    double energy_idle_j = 0;
    // Cluster models (docs/cluster.md); zero unless a model is on.
    double energy_node_base_j = 0;
    double energy_off_j = 0;
    double energy_boot_j = 0;
    double down_gpu_ms = 0;  // GPU-time on failed nodes
    double off_gpu_ms = 0;   // GPU-time on nodes powered off or booting
    double emissions_g = 0;  // with --carbon
  };
  const Totals& totals() const { return totals_; }

 private:
  // State over one stretch [from, to) in which nothing changed.
  struct Segment {
    TimeMs from_ms = 0;
    TimeMs to_ms = 0;
    std::int64_t busy_gpus = 0;
    std::int64_t queued_jobs = 0;
    std::int64_t queued_gpus = 0;
    std::int64_t running_jobs = 0;
    double busy_power_w = 0;
    double idle_power_w = 0;
  };
  // What the cluster models add to a segment (kept apart so the plain path stays small).
  struct ModelSegment {
    double node_base_power_w = 0;
    double off_power_w = 0;
    double boot_power_w = 0;
    std::int64_t down_gpus = 0;
    std::int64_t off_gpus = 0;
    std::int64_t off_nodes = 0;
    std::int64_t down_nodes = 0;
  };
  struct SeriesRow {
    TimeMs start_ms = 0;
    TimeMs covered_ms = 0;
    double busy_gpu_ms = 0;
    double queued_jobs_ms = 0;
    double queued_gpus_ms = 0;
    double running_jobs_ms = 0;
    double energy_j = 0;
    double off_nodes_ms = 0;
    double down_nodes_ms = 0;
  };
  void advance_with_models(const Cluster& cluster, Segment& segment);
  template <bool kModels>
  void accumulate(const Segment& segment, const ModelSegment& models);
  void commit_pending();
  std::size_t series_columns();
  bool series_too_large(std::uint64_t rows) const;
  [[noreturn]] void throw_too_many_rows() const;
  template <bool kModels>
  void add_to_series(const Segment& segment, const ModelSegment& models);
  double facility_power_w(const Segment& segment, const ModelSegment& models) const;
  void add_attempt_energy(const RunView& ctx, JobIndex job);
  double node_base_share_w(const Cluster& cluster, const Placement& placement) const;
  void add_energy_keys(nlohmann::ordered_json& out) const;
  // The run's options as summary.json echoes them (run_option_table.hpp).
  nlohmann::ordered_json options_json() const;

  bool keep_series_ = true;
  std::vector<const SeriesColumns*> extra_columns_;
  const RunView* ctx_ = nullptr;
  // Whether a cluster model is on: outputs gain their cluster-model keys and columns.
  bool extended_ = false;
  bool node_power_ = false;
  double pue_ = 1.0;
  bool job_energy_extended_ = false;     // per-job energy adds a node-base share and applies PUE
  std::vector<double> job_energy_j_;     // per job: energy of its attempts so far (jobs.csv)
  std::vector<double> node_gpu_busy_w_;  // per node: busy power of one of its GPUs
  std::size_t carbon_cursor_ = 0;
  TimeMs interval_ms_ = 300'000;
  std::int64_t total_gpus_ = 0;
  std::vector<std::int64_t> type_total_gpus_;
  Totals totals_;
  // What came after the latest finish, kept as the integrals it leads to (not segment by
  // segment, so memory does not grow with events): committed at the next finish, dropped at the
  // end, so every integral stops at the last finish.
  bool pending_open_ = false;
  Totals pending_totals_;
  std::size_t pending_carbon_cursor_ = 0;
  std::vector<SeriesRow> pending_series_;  // from a copy of series_.back(), when there is one
  std::vector<SeriesRow> series_;
  std::uint64_t submit_span_rows_ = 0;  // rows the submit span alone needs
  std::size_t series_columns_ = 0;      // 0 until the first advance
};

}  // namespace schedlab
