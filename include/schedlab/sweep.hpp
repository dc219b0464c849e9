// Parameter sweeps: the cross product of policies x policy parameters x traces x cluster specs x
// load scales x seeds, run as independent simulations on local cores.
//
// Contracts:
// - Cells are numbered in a fixed order (policy variant, trace, cluster, load scale, seed; the
//   seed varies fastest). Every output is ordered by cell index, so results are the same for
//   any number of worker threads (byte-identical with `reproducible`).
// - Each cell writes summary.json, jobs.csv, timeseries.csv and, last, cell.json (its
//   definition) into OUT/cells/NNNN/ atomically. A cell whose cell.json matches its definition
//   is done and is not rerun, so an interrupted sweep resumes where it stopped. One sweep
//   process per output directory: the resume scan deletes leftover ".NAME.tmp.PID" files.
// - The same sweep run on the ranks of an MPI job (`mpirun -n N schedlab sweep`, the steps of
//   sweep_steps.hpp) writes the same output tree byte for byte.
// - The results table (results.csv, results.jsonl: one row per cell with every summary metric)
//   and the across-seed aggregate (aggregate.csv, aggregate.jsonl: mean and 95% CI per metric)
//   are written atomically after all cells finished.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/job.hpp"
#include "schedlab/run_options.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/sweep_inflight.hpp"

namespace schedlab {

// One policy with one assignment of its parameters.
struct SweepVariant {
  std::string policy;
  std::map<std::string, std::string> params;
  std::string label;  // "sjf" or "sjf(aging_s=60)", or the spec's "label"
};

struct SweepTrace {
  std::string path;
  std::string format = "auto";
};

struct SweepSpec {
  std::string source;  // spec file or "command line", for messages
  std::vector<SweepVariant> variants;
  std::vector<SweepTrace> traces;
  std::vector<std::string> clusters;
  std::vector<double> load_scales;  // > 0; 2 = arrivals twice as dense
  std::vector<std::uint64_t> seeds;
  RunOptions options;  // options.seed is replaced by each cell's seed
  bool reproducible = false;
};

// The file a cluster spec text reads: FILE of a node inventory "KIND:FILE[@VC]", or the text
// itself when it names a cluster JSON file (ends in ".json" or holds a '/'); "" for the compact
// form. `rewrite` maps that file path; the rest of the text is kept.
std::string cluster_spec_file(const std::string& text);
std::string rewrite_cluster_spec_file(
    const std::string& text, const std::function<std::string(const std::string&)>& rewrite);

// Parses a sweep spec (format in docs/workflows.md). Relative paths of traces, cluster files and
// option files (failure_trace, carbon) are resolved against `base_dir` (the spec file's
// directory; "" = as given). Throws ConfigError
// "SOURCE: FIELD: problem" on unknown keys, wrong types, empty axes or bad values.
SweepSpec parse_sweep_spec(const nlohmann::ordered_json& spec, const std::string& source,
                           const std::string& base_dir = "");
// The normalized spec (every axis expanded, options explicit), written as OUT/sweep.json.
nlohmann::ordered_json sweep_spec_json(const SweepSpec& spec);

struct SweepCell {
  std::size_t index = 0;
  std::size_t variant = 0, trace = 0, cluster = 0, load = 0, seed = 0;  // axis positions
};
std::vector<SweepCell> expand_cells(const SweepSpec& spec);

// The definition of one cell as written to its cell.json and as the leading fields of its
// results row: cell, policy, variant, params, trace, cluster, load_scale, seed.
nlohmann::ordered_json cell_definition(const SweepSpec& spec, const SweepCell& cell);
// Directory of a cell relative to the sweep's output directory ("cells/0007").
std::string cell_dir_name(const SweepSpec& spec, const SweepCell& cell);
// Stable text identifying a cell by its axis values (not its index), used to match rows of two
// sweeps: "variant=fifo policy=fifo params= trace=a.csv cluster=4x8 load_scale=1.5 seed=2".
std::string cell_key(const nlohmann::ordered_json& definition);

// Arrival-time compression: submit' = t0 + round((submit - t0) / load_scale), t0 = earliest
// submit. load_scale 2 offers the same jobs in half the time (twice the load).
Trace scale_arrivals(const Trace& trace, double load_scale);

// The traces and clusters of a spec, read and parsed: parallel to spec.traces and spec.clusters.
struct SweepInputs {
  std::vector<Trace> traces;
  std::vector<ClusterSpec> clusters;
};
// Validates the policies and the placement and reads every trace and cluster spec (throws
// ConfigError / TraceError).
SweepInputs load_sweep_inputs(const SweepSpec& spec);

// What a cell's run builds besides its summary, and who watches it (SimulationRequest).
struct CellOutputs {
  bool files = true;  // jobs.csv, attempts.csv, timeseries.csv
  RunProgressCallback progress;
  std::vector<JobClassKind> job_classes;  // SimulationRequest::job_classes
  JobClassBounds class_bounds;
};

// The simulation of one cell: its variant on its trace (arrivals scaled by its load scale) and
// cluster, with the spec's options and the cell's seed.
SimulationResult simulate_cell(const SweepSpec& spec, const SweepInputs& inputs,
                               const SweepCell& cell, const CellOutputs& outputs = {});

// The sweep's worker pool: calls `work(cell)` for every cell on up to `jobs` threads (>= 1),
// then `finished(cell, failure, wall_s)` with what `work` threw (null when it returned). The
// `finished` calls are serialized (never concurrent), in completion order.
void for_each_cell(
    const std::vector<SweepCell>& cells, unsigned jobs,
    const std::function<void(const SweepCell&)>& work,
    const std::function<void(const SweepCell&, std::exception_ptr, double wall_s)>& finished);

// The results row of a cell (a line of results.jsonl): its definition, "status" ("ok" with
// `summary`, else "failed" with `error`), and "dir" and "summary" when ok.
nlohmann::ordered_json results_row(const SweepSpec& spec, const SweepCell& cell,
                                   const nlohmann::ordered_json* summary, const std::string& error);

// A deterministic share of a sweep's cells, for batch arrays (Slurm --array, PBS, HTCondor):
// shard K of N holds the cells whose index i has i % N == K - 1. Cells of every axis interleave
// (the seed varies fastest), so shards of a large sweep cost about the same.
struct SweepShard {
  std::size_t index = 1;  // K, 1-based
  std::size_t count = 1;  // N; 1 = the whole sweep
};
// "K/N" with 1 <= K <= N <= 1,000,000; throws ConfigError "--shard TEXT: ..." otherwise.
SweepShard parse_sweep_shard(const std::string& text);
inline bool in_shard(const SweepCell& cell, const SweepShard& shard) {
  return cell.index % shard.count == shard.index - 1;
}

// Writes sweep.json (`spec_json`), results.jsonl and results.csv (`rows`, in cell order) and the
// across-seed aggregate of the rows (aggregate.csv, aggregate.jsonl) into `out_dir` atomically.
void write_sweep_tables(const std::string& out_dir, const nlohmann::ordered_json& spec_json,
                        const std::vector<nlohmann::ordered_json>& rows);

struct SweepProgress {
  std::size_t done = 0;  // cells finished so far, including resumed ones
  std::size_t total = 0;
  std::size_t resumed = 0;  // cells found done on disk
  std::size_t failed = 0;
  std::size_t cell = 0;  // index of the cell that just finished
  std::string label;     // its description
  double wall_s = 0.0;   // its run time
  bool ok = true;
  // The report after the resume scan only: cells a stopped MPI run had in flight, which run
  // again (sweep_inflight.hpp).
  std::vector<SweepInflightCell> interrupted;
};

struct SweepRunOptions {
  std::string out_dir;
  unsigned jobs = 1;   // worker threads (>= 1)
  bool rerun = false;  // ignore finished cells on disk
  // Runs and reports only this share of the cells; sweep.json then records it as
  // "shard": {"index": K, "count": N} (merge_sweep_shards joins the shards).
  SweepShard shard;
  // Called once after the resume scan (with done = resumed cells, label empty) and once per
  // finished cell, serialized (never concurrently), in completion order.
  std::function<void(const SweepProgress&)> progress;
  // Called as a cell's run goes on (ProgressObserver), from the worker thread that runs it:
  // calls for different cells may be concurrent with each other and with `progress`.
  std::function<void(std::size_t cell, const RunProgress&)> cell_progress;
  // Job classes each cell's summary.json breaks its jobs down by (CellOutputs::job_classes);
  // when any, cell.json records them, so cells run without them are not resumed.
  std::vector<JobClassKind> job_classes;
  JobClassBounds class_bounds;
};

struct SweepOutcome {
  std::size_t cells = 0;        // of this run (its shard)
  std::size_t total_cells = 0;  // of the spec
  std::size_t ran = 0;
  std::size_t resumed = 0;
  std::size_t failed = 0;
  // The exception of the failed cell with the lowest index (null when none failed).
  std::exception_ptr first_failure;
  std::size_t first_failed_cell = 0;
};

// Runs every cell not already done. Traces, clusters, policies and placement are validated
// before any cell runs (ConfigError / TraceError, nothing written). A cell that throws is
// recorded in the results with status "failed" and its message; the other cells still run.
SweepOutcome run_sweep(const SweepSpec& spec, const SweepRunOptions& options);

// Rows of results.jsonl: the cell definition plus "status", "error" (when failed), "dir" and
// "summary" (the cell's summary.json; absent when failed).
std::vector<nlohmann::ordered_json> read_sweep_results(const std::string& results_jsonl_path);

// Aggregate across seeds: rows of the same variant, trace, cluster and load scale, in order of
// first appearance; for every numeric summary field the mean and 95% CI over the ok rows.
struct SweepGroup {
  nlohmann::ordered_json definition;  // policy, variant, params, trace, cluster, load_scale
  std::vector<std::uint64_t> seeds;   // of the ok rows
  std::vector<std::string> metrics;   // numeric fields, in first-seen order
  std::map<std::string, MeanCi> stats;
};
std::vector<SweepGroup> aggregate_sweep(const std::vector<nlohmann::ordered_json>& rows);

}  // namespace schedlab
