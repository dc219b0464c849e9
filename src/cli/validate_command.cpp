// schedlab validate TRACE: reads and checks a trace, prints its statistics.
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/cluster.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/trace_stats.hpp"

namespace schedlab::cli {

namespace {

struct ValidateArgs {
  std::string trace;
  std::string format = "auto";
  std::vector<std::string> filters;
  std::string cluster;
  bool json = false;
};

// Jobs that can never start on the cluster: too many GPUs, or a gpu_type it lacks.
std::string cluster_fit(const Trace& trace, const Cluster& cluster) {
  std::uint64_t too_big = 0;
  std::uint64_t missing_type = 0;
  for (const auto& job : trace.jobs) {
    GpuTypeIndex type = kAnyGpuType;
    if (job.gpu_type != 0) {
      const auto found = cluster.find_gpu_type(trace.strings.str(job.gpu_type));
      if (!found || cluster.total_gpus_of(*found) == 0) {
        ++missing_type;
        continue;
      }
      type = *found;
    }
    if (job.gpus > cluster.total_gpus_of(type)) ++too_big;
  }
  return fmt::format(
      "{} GPUs on {} nodes; {} jobs need more GPUs than it has, {} a gpu_type it lacks",
      cluster.total_gpus(), cluster.node_count(), too_big, missing_type);
}

}  // namespace

Action add_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "read and check a trace; print jobs, span, GPU sizes, durations, GPU-hours, peak demand");
  cmd->add_option("trace", args->trace,
                  "trace file or directory of trace files (.gz is read directly)")
      ->required();
  cmd->add_option("--format", args->format, "trace format (auto decides from the content)")
      ->capture_default_str();
  add_filter_option(*cmd, args->filters);
  cmd->add_option("-c,--cluster", args->cluster,
                  "also count the jobs that can never run on this cluster");
  cmd->add_flag("--json", args->json, "print the statistics as JSON");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    // The cluster is checked before the trace is read, so a bad spec is the only message.
    std::optional<Cluster> cluster;
    if (!args->cluster.empty()) cluster.emplace(parse_cluster_spec(args->cluster));
    const Trace trace = load_trace(args->trace, args->format, args->filters);
    const TraceStats stats = compute_trace_stats(trace);
    std::string text;
    if (args->json) {
      auto json = trace_stats_json(trace, stats);
      if (cluster) json["cluster_fit"] = cluster_fit(trace, *cluster);
      text = json_text(json, 2) + "\n";
    } else {
      text = format_trace_stats(trace, stats);
      if (cluster) text += fmt::format("{:<22}{}\n", "cluster", cluster_fit(trace, *cluster));
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  };
}

}  // namespace schedlab::cli
