// A sweep's cells: the spec's axes expanded, each cell's definition, directory and key, the inputs
// loaded once, one cell's run, and the threads that run the cells.
#include "schedlab/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/resample.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/trace.hpp"
#include "sweep_cell_text.hpp"

namespace schedlab {

using Json = nlohmann::ordered_json;

std::vector<SweepCell> expand_cells(const SweepSpec& spec) {
  std::vector<SweepCell> cells;
  for (std::size_t v = 0; v < spec.variants.size(); ++v)
    for (std::size_t t = 0; t < spec.traces.size(); ++t)
      for (std::size_t c = 0; c < spec.clusters.size(); ++c)
        for (std::size_t l = 0; l < spec.load_scales.size(); ++l)
          for (std::size_t s = 0; s < spec.seeds.size(); ++s)
            cells.push_back(SweepCell{cells.size(), v, t, c, l, s});
  return cells;
}

Json cell_definition(const SweepSpec& spec, const SweepCell& cell) {
  const SweepVariant& variant = spec.variants[cell.variant];
  Json out;
  out["cell"] = cell.index;
  out["policy"] = variant.policy;
  out["variant"] = variant.label;
  out["params"] = Json::object();
  for (const auto& [key, value] : variant.params) out["params"][key] = value;
  out["trace"] = spec.traces[cell.trace].path;
  out["cluster"] = spec.clusters[cell.cluster];
  out["load_scale"] = spec.load_scales[cell.load];
  out["seed"] = spec.seeds[cell.seed];
  // The workload of the cell: drawn from the trace by its seed (left out when none, so that
  // sweeps without resampling keep their cell definitions).
  if (spec.options.resample.kind != ResampleKind::kNone)
    out["resample"] = spec.options.resample.text;
  return out;
}

std::string cell_dir_name(const SweepSpec& spec, const SweepCell& cell) {
  const std::size_t count = spec.variants.size() * spec.traces.size() * spec.clusters.size() *
                            spec.load_scales.size() * spec.seeds.size();
  const std::size_t width =
      std::max<std::size_t>(4, std::to_string(count > 0 ? count - 1 : 0).size());
  return fmt::format("cells/{:0{}}", cell.index, width);
}

std::string cell_key(const Json& d) {
  return fmt::format("variant={} policy={} params={} trace={} cluster={} load_scale={} seed={}",
                     d.at("variant").get<std::string>(), d.at("policy").get<std::string>(),
                     json_scalar_text(d.at("params")), d.at("trace").get<std::string>(),
                     d.at("cluster").get<std::string>(),
                     format_number(d.at("load_scale").get<double>()),
                     json_scalar_text(d.at("seed")));
}

Trace scale_arrivals(const Trace& trace, double load_scale) {
  SCHEDLAB_ASSERT(load_scale > 0 && std::isfinite(load_scale), "load scale is positive");
  Trace out = trace;
  if (out.jobs.empty() || load_scale == 1.0) return out;
  check_time_range(trace, load_scale, ResampleSpec{});
  TimeMs first = out.jobs.front().submit_ms;
  for (const auto& job : out.jobs) first = std::min(first, job.submit_ms);
  for (auto& job : out.jobs)
    job.submit_ms = first + std::llround(static_cast<double>(job.submit_ms - first) / load_scale);
  return out;
}

SweepInputs load_sweep_inputs(const SweepSpec& spec) {
  for (const auto& variant : spec.variants) make_policy(variant.policy, variant.params);
  make_placement(spec.options.placement);
  SweepInputs inputs;
  for (const auto& text : spec.clusters) inputs.clusters.push_back(parse_cluster_spec(text));
  for (const auto& t : spec.traces)
    inputs.traces.push_back(read_trace(t.path, TraceReadOptions{t.format}));
  for (const Trace& trace : inputs.traces)  // every cell's times fit the clock, checked up front
    for (const double load : spec.load_scales) check_time_range(trace, load, spec.options.resample);
  return inputs;
}

SimulationResult simulate_cell(const SweepSpec& spec, const SweepInputs& inputs,
                               const SweepCell& cell, const CellOutputs& outputs) {
  SimulationRequest request;
  request.files = outputs.files;
  request.progress = outputs.progress;
  request.job_classes = outputs.job_classes;
  request.class_bounds = outputs.class_bounds;
  request.policy = spec.variants[cell.variant].policy;
  request.params = spec.variants[cell.variant].params;
  request.options = spec.options;
  request.options.seed = spec.seeds[cell.seed];
  request.reproducible = spec.reproducible;
  const double load = spec.load_scales[cell.load];
  if (load == 1.0)
    return simulate(inputs.traces[cell.trace], inputs.clusters[cell.cluster], request);
  const Trace scaled = scale_arrivals(inputs.traces[cell.trace], load);
  return simulate(scaled, inputs.clusters[cell.cluster], request);
}

void for_each_cell(
    const std::vector<SweepCell>& cells, unsigned jobs,
    const std::function<void(const SweepCell&)>& work,
    const std::function<void(const SweepCell&, std::exception_ptr, double wall_s)>& finished) {
  SCHEDLAB_ASSERT(jobs >= 1, "at least one worker");
  std::mutex mutex;  // serializes `finished`
  std::atomic<std::size_t> next{0};
  auto worker = [&]() {
    while (true) {
      const std::size_t slot = next.fetch_add(1);
      if (slot >= cells.size()) return;
      const SweepCell& cell = cells[slot];
      const auto started = std::chrono::steady_clock::now();
      std::exception_ptr failure;
      try {
        work(cell);
      } catch (...) {
        failure = std::current_exception();
      }
      const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - started;
      std::lock_guard lock(mutex);
      finished(cell, failure, wall.count());
    }
  };
  const std::size_t threads = std::min<std::size_t>(jobs, cells.size());
  if (threads <= 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (auto& thread : pool) thread.join();
}

Json results_row(const SweepSpec& spec, const SweepCell& cell, const Json* summary,
                 const std::string& error) {
  Json row = cell_definition(spec, cell);
  if (summary != nullptr) {
    row["status"] = "ok";
    row["dir"] = cell_dir_name(spec, cell);
    row["summary"] = *summary;
  } else {
    row["status"] = "failed";
    row["error"] = error;
  }
  return row;
}

}  // namespace schedlab
