// The steps of a sweep run (sweep_steps.hpp) and run_sweep, which runs them on local threads.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "schedlab/carbon.hpp"
#include "schedlab/error.hpp"
#include "schedlab/error_kind.hpp"
#include "schedlab/failure_model.hpp"
#include "schedlab/fingerprint.hpp"
#include "schedlab/job_classes.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/output.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/sweep_inflight.hpp"
#include "schedlab/sweep_steps.hpp"
#include "schedlab/tenants.hpp"
#include "schedlab/trace.hpp"
#include "schedlab/trace_fingerprint.hpp"

namespace schedlab {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// FNV-1a of a file's bytes, as 16 hex digits.
std::string file_fingerprint(const std::string& path) {
  Fingerprint hash;
  hash.add_bytes(read_file_bytes(path));
  return hash.hex();
}

std::string cell_label(const Json& definition) {
  return fmt::format("{} | {} | {} | load {} | seed {}", definition["variant"].get<std::string>(),
                     fs::path(definition["trace"].get<std::string>()).filename().string(),
                     definition["cluster"].get<std::string>(),
                     format_number(definition["load_scale"].get<double>()),
                     definition["seed"].get<std::uint64_t>());
}

std::optional<Json> read_json_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  try {
    return parse_json_text<Json>(read_file_bytes(path.string()), path.string());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

SweepRun prepare_sweep(const SweepSpec& spec, const SweepRunOptions& options) {
  SweepRun run;
  // Validate every input before anything is written.
  run.inputs = load_sweep_inputs(spec);
  std::vector<std::string> fingerprints;
  for (const auto& trace : run.inputs.traces) fingerprints.push_back(trace_fingerprint(trace));

  // Every cell is defined (slots are indexed by cell index); a shard runs and reports its own.
  const std::vector<SweepCell> all_cells = expand_cells(spec);
  if (options.shard.count > all_cells.size())
    throw ConfigError(fmt::format(
        "--shard {}/{}: the sweep has {} cells, so at most {} shards (every shard runs a cell)",
        options.shard.index, options.shard.count, all_cells.size(), all_cells.size()));
  // Inputs checked: from here on this process owns the output directory.
  run.output_lock = std::make_shared<const OutputDirLock>(options.out_dir);
  run.cells = all_cells;
  std::erase_if(run.cells,
                [&options](const SweepCell& cell) { return !in_shard(cell, options.shard); });

  // What cell.json holds: the definition plus everything else that changes the cell's outputs,
  // including the contents of the files the cluster and the options read.
  Json option_files = Json::object();
  if (spec.options.failure_trace)
    option_files["failure_trace"] = file_fingerprint(spec.options.failure_trace->path);
  if (spec.options.carbon) option_files["carbon"] = file_fingerprint(spec.options.carbon->path);
  if (spec.options.tenants && !spec.options.tenants->path.empty())
    option_files["tenants"] = file_fingerprint(spec.options.tenants->path);
  std::vector<Json> cluster_files;
  for (const auto& text : spec.clusters) {
    Json files = option_files;
    if (const std::string file = cluster_spec_file(text); !file.empty())
      files["cluster"] = file_fingerprint(file);
    cluster_files.push_back(std::move(files));
  }
  const Json options_echo = sweep_spec_json(spec).at("options");
  Json classes_echo = Json::object();
  if (!options.job_classes.empty()) {
    Json kinds = Json::array();
    for (const JobClassKind kind : options.job_classes) kinds.push_back(job_class_kind_name(kind));
    classes_echo["kinds"] = std::move(kinds);
    classes_echo["size_upper"] = options.class_bounds.size_upper;
    classes_echo["duration_upper_ms"] = options.class_bounds.duration_upper_ms;
  }
  for (const auto& cell : all_cells) {
    run.definitions.push_back(cell_definition(spec, cell));
    Json marker = run.definitions.back();
    marker["trace_fingerprint"] = fingerprints[cell.trace];
    if (!cluster_files[cell.cluster].empty())
      marker["file_fingerprints"] = cluster_files[cell.cluster];
    marker["options"] = options_echo;
    marker["reproducible"] = spec.reproducible;
    if (!options.job_classes.empty()) marker["job_classes"] = classes_echo;
    run.markers.push_back(std::move(marker));
  }

  // Resume: a cell is done when its cell.json (written last) matches and its summary reads.
  run.summaries.resize(all_cells.size());
  run.errors.resize(all_cells.size());
  run.failures.resize(all_cells.size());
  run.outcome.cells = run.cells.size();
  run.outcome.total_cells = all_cells.size();
  for (const auto& cell : run.cells) {
    const fs::path dir = fs::path(options.out_dir) / cell_dir_name(spec, cell);
    remove_stale_temporaries(dir.string());
    if (!options.rerun) {
      const auto marker = read_json_file(dir / "cell.json");
      if (marker && *marker == run.markers[cell.index]) {
        auto summary = read_json_file(dir / "summary.json");
        if (summary && summary->is_object()) {
          run.summaries[cell.index] = std::move(*summary);
          ++run.outcome.resumed;
          continue;
        }
      }
    }
    run.pending.push_back(cell);
  }
  std::set<std::size_t> pending_indices;
  for (const auto& cell : run.pending) pending_indices.insert(cell.index);
  for (auto& lost : read_sweep_inflight(options.out_dir))
    if (pending_indices.contains(lost.cell)) run.interrupted.push_back(std::move(lost));

  run.progress.total = run.cells.size();
  run.progress.done = run.outcome.resumed;
  run.progress.resumed = run.outcome.resumed;
  run.progress.interrupted = run.interrupted;
  if (options.progress) options.progress(run.progress);
  run.progress.interrupted.clear();
  return run;
}

Json run_sweep_cell(const SweepSpec& spec, const SweepInputs& inputs, const SweepCell& cell,
                    const std::string& out_dir, const Json& marker,
                    const CellOutputs& cell_outputs) {
  const fs::path dir = fs::path(out_dir) / cell_dir_name(spec, cell);
  // A stale record must not outlive the files it describes: it goes before any is replaced.
  std::error_code ignored;
  fs::remove(dir / "cell.json", ignored);
  CellOutputs outputs = cell_outputs;
  outputs.files = true;
  SimulationResult result = simulate_cell(spec, inputs, cell, outputs);
  const std::string summary_text = json_text(result.summary, 2) + "\n";
  const std::string marker_text = json_text(marker, 2) + "\n";
  // cell.json last: it marks the cell done only once the other files are in place.
  auto files = run_output_files(result, summary_text);
  files.emplace_back("cell.json", marker_text);
  write_files_atomically(dir.string(), files);
  return std::move(result.summary);
}

std::string sweep_failure_text(const std::exception_ptr& failure) {
  return failure_text(classify_exception(failure));
}

void record_sweep_cell(SweepRun& run, const SweepRunOptions& options, const SweepCell& cell,
                       std::optional<Json> summary, const std::exception_ptr& failure,
                       const std::string& error, double wall_s) {
  SCHEDLAB_ASSERT(
      cell.index < run.summaries.size() && !run.summaries[cell.index] && !run.failures[cell.index],
      "a pending cell finishes once");
  SCHEDLAB_ASSERT(failure || summary, "a finished cell has a summary or a failure");
  if (failure) {
    run.failures[cell.index] = failure;
    run.errors[cell.index] = error;
  } else {
    run.summaries[cell.index] = std::move(summary);
  }
  SweepProgress& progress = run.progress;
  ++progress.done;
  if (failure) ++progress.failed;
  progress.cell = cell.index;
  progress.label = cell_label(run.definitions[cell.index]);
  progress.wall_s = wall_s;
  progress.ok = !failure;
  if (options.progress) options.progress(progress);
}

SweepOutcome finish_sweep(const SweepSpec& spec, const SweepRunOptions& options, SweepRun& run) {
  SweepOutcome outcome = run.outcome;
  outcome.ran = run.pending.size();
  // Rows in cell order, whatever the completion order was.
  std::vector<Json> rows;
  rows.reserve(run.cells.size());
  for (const auto& cell : run.cells) {
    const Json* summary = run.summaries[cell.index] ? &*run.summaries[cell.index] : nullptr;
    Json row = results_row(spec, cell, summary, run.errors[cell.index]);
    if (summary == nullptr) {
      ++outcome.failed;
      if (!outcome.first_failure) {
        outcome.first_failure = run.failures[cell.index];
        outcome.first_failed_cell = cell.index;
      }
    }
    rows.push_back(std::move(row));
  }
  Json spec_json = sweep_spec_json(spec);
  if (options.shard.count > 1)
    spec_json["shard"] = Json{{"index", options.shard.index}, {"count", options.shard.count}};
  write_sweep_tables(options.out_dir, spec_json, rows);
  remove_sweep_inflight(options.out_dir);
  return outcome;
}

std::vector<SweepCell> largest_first(const SweepSpec& spec, const SweepInputs& inputs,
                                     std::vector<SweepCell> cells) {
  auto size = [&](const SweepCell& cell) {
    return static_cast<double>(inputs.traces[cell.trace].jobs.size()) * spec.load_scales[cell.load];
  };
  std::sort(cells.begin(), cells.end(), [&size](const SweepCell& a, const SweepCell& b) {
    const double size_a = size(a);
    const double size_b = size(b);
    return size_a != size_b ? size_a > size_b : a.index < b.index;
  });
  return cells;
}

SweepOutcome run_sweep(const SweepSpec& spec, const SweepRunOptions& options) {
  SCHEDLAB_ASSERT(options.jobs >= 1, "at least one worker");
  SweepRun run = prepare_sweep(spec, options);
  // Each cell writes only its own slot and directory.
  std::vector<std::optional<Json>> summaries(run.summaries.size());
  auto work = [&](const SweepCell& cell) {
    CellOutputs outputs;
    outputs.job_classes = options.job_classes;
    outputs.class_bounds = options.class_bounds;
    if (options.cell_progress)
      outputs.progress = [&options, index = cell.index](const RunProgress& p) {
        options.cell_progress(index, p);
      };
    summaries[cell.index] =
        run_sweep_cell(spec, run.inputs, cell, options.out_dir, run.markers[cell.index], outputs);
  };
  auto finished = [&](const SweepCell& cell, const std::exception_ptr& failure, double wall_s) {
    record_sweep_cell(run, options, cell, std::move(summaries[cell.index]), failure,
                      failure ? sweep_failure_text(failure) : std::string(), wall_s);
  };
  for_each_cell(run.pending, options.jobs, work, finished);
  return finish_sweep(spec, options, run);
}

}  // namespace schedlab
