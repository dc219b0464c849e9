// The steps of a sweep run, shared by every runner: run_sweep (the cells on threads of one
// process) and the MPI runner of `schedlab sweep` (the cells on the ranks of an MPI job). Each
// step has one owner, so that a sweep's output does not depend on the runner that made it.
//
// Contracts:
// - prepare_sweep validates every input before anything is written (ConfigError /
//   TraceError), then scans the output directory: a cell whose cell.json matches its marker and
//   whose summary.json reads is done (resumed); leftover ".NAME.tmp.PID" files of the cells and
//   of the directory itself are deleted. It takes the output directory's lock
//   (OutputDirLock, held by SweepRun::output_lock) after the validation, before the scan.
// - run_sweep_cell writes one cell's files into OUT/cells/NNNN atomically, cell.json last, and
//   may run on any thread of any process that sees OUT (a shared filesystem across machines).
// - record_sweep_cell is called once per pending cell, serialized, in completion order.
// - finish_sweep assembles the rows in cell order whatever the completion order was, writes
//   the tables (write_sweep_tables) and removes the in-flight journal (sweep_inflight.hpp).
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/run_progress.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/sweep_inflight.hpp"

namespace schedlab {

class OutputDirLock;

// A sweep between its resume scan and its tables. Vectors named "by cell index" have a slot for
// every cell of the spec; only this run's cells (its shard) are filled.
struct SweepRun {
  SweepInputs inputs;
  std::vector<SweepCell> cells;                     // this run's cells, in cell order
  std::vector<SweepCell> pending;                   // those not done on disk, in cell order
  std::vector<nlohmann::ordered_json> definitions;  // by cell index
  std::vector<nlohmann::ordered_json> markers;      // by cell index: what cell.json holds
  // The cells the journal of a stopped MPI run had in flight that are not done on disk.
  std::vector<SweepInflightCell> interrupted;
  // By cell index: the summary of a done cell, else the failure of a failed one.
  std::vector<std::optional<nlohmann::ordered_json>> summaries;
  std::vector<std::string> errors;  // failure text, as results.jsonl records it
  std::vector<std::exception_ptr> failures;
  SweepProgress progress;  // the latest report to SweepRunOptions::progress
  SweepOutcome outcome;    // cells, total_cells and resumed; finish_sweep completes it
  std::shared_ptr<const OutputDirLock> output_lock;  // the output directory, while this lives
};

// Validates the inputs and scans the output directory; reports the scan to options.progress.
SweepRun prepare_sweep(const SweepSpec& spec, const SweepRunOptions& options);

// Runs one cell and writes its files; returns its summary (throws what the simulation threw,
// after removing the cell's stale cell.json). `marker` is the cell's SweepRun::markers entry;
// `outputs.files` is ignored (a cell always writes its files).
nlohmann::ordered_json run_sweep_cell(const SweepSpec& spec, const SweepInputs& inputs,
                                      const SweepCell& cell, const std::string& out_dir,
                                      const nlohmann::ordered_json& marker,
                                      const CellOutputs& outputs = {});

// The text results.jsonl records for a failed cell: "stuck: ...", "input error: ...",
// "output error: ..." (an OutputError: its files could not be written) or "internal error: ...".
std::string sweep_failure_text(const std::exception_ptr& failure);

// Records a finished cell of run.pending: its summary, or its failure (`failure` non-null, with
// its sweep_failure_text `error`), and reports it to options.progress.
void record_sweep_cell(SweepRun& run, const SweepRunOptions& options, const SweepCell& cell,
                       std::optional<nlohmann::ordered_json> summary,
                       const std::exception_ptr& failure, const std::string& error, double wall_s);

// Writes the results of every cell of the run and returns the outcome.
SweepOutcome finish_sweep(const SweepSpec& spec, const SweepRunOptions& options, SweepRun& run);

// The cells in the order a pool of workers should take them so that the longest come first:
// by the number of jobs of the cell's trace times its load scale, descending; ties by cell index.
// (A cell's run time grows with the jobs it simulates and with how densely they arrive.)
std::vector<SweepCell> largest_first(const SweepSpec& spec, const SweepInputs& inputs,
                                     std::vector<SweepCell> cells);

}  // namespace schedlab
