#include "schedlab/output_columns.hpp"

#include <array>

#include "schedlab/metrics.hpp"
#include "schedlab/output.hpp"

namespace schedlab {
namespace {

bool rejected(const JobRow& row) {
  return row.state.status == JobStatus::kRejected;
}

TimeMs execution_ms(const JobRow& row) {
  return row.state.finish_ms - row.state.first_start_ms;
}

// The GPU types of a placement's nodes in node order, each once, joined with '+'.
void append_gpu_types(std::string& out, const Cluster& cluster, const Placement& placement) {
  GpuTypeIndex previous = kAnyGpuType;
  bool first = true;
  for (const auto& a : placement) {
    const GpuTypeIndex type = cluster.node(a.node).type;
    if (type == previous) continue;
    bool seen = false;
    for (const auto& b : placement) {
      if (&b == &a) break;
      seen = seen || cluster.node(b.node).type == type;
    }
    previous = type;
    if (seen) continue;
    if (!first) out += '+';
    append_csv_field(out, cluster.gpu_types()[type].name);
    first = false;
  }
}

// Cells that are empty for a rejected job (nothing ran).
template <void (*Write)(std::string&, const JobRow&)>
void unless_rejected(std::string& out, const JobRow& row) {
  if (!rejected(row)) Write(out, row);
}

void starting_time(std::string& out, const JobRow& row) {
  append_seconds(out, row.state.first_start_ms);
}
void execution_time(std::string& out, const JobRow& row) {
  append_seconds(out, execution_ms(row));
}
void finish_time(std::string& out, const JobRow& row) {
  append_seconds(out, row.state.finish_ms);
}
void waiting_time(std::string& out, const JobRow& row) {
  append_seconds(out, row.state.first_start_ms - row.spec.submit_ms);
}
void turnaround_time(std::string& out, const JobRow& row) {
  append_seconds(out, row.state.finish_ms - row.spec.submit_ms);
}
void stretch(std::string& out, const JobRow& row) {
  const TimeMs ran_ms = execution_ms(row);
  const TimeMs turnaround_ms = row.state.finish_ms - row.spec.submit_ms;
  append_metric(
      out, ran_ms > 0 ? static_cast<double>(turnaround_ms) / static_cast<double>(ran_ms) : 1.0, 6);
}
void allocated_resources(std::string& out, const JobRow& row) {
  row.cluster.append_gpu_id_ranges(out, row.state.placement);
}
void consumed_energy(std::string& out, const JobRow& row) {
  append_metric(out, row.energy_j, 3);
}
void job_bounded_slowdown(std::string& out, const JobRow& row) {
  append_metric(out, bounded_slowdown(row.spec, row.state), 6);
}
void gpu_type(std::string& out, const JobRow& row) {
  append_gpu_types(out, row.cluster, row.state.placement);
}
void queued_time(std::string& out, const JobRow& row) {
  append_seconds(out, queued_ms(row.spec, row.state));
}
void slowdown_factor(std::string& out, const JobRow& row) {
  append_metric(out, row.state.slowdown, 6);
}
void nodes(std::string& out, const JobRow& row) {
  append_int(out, static_cast<std::int64_t>(row.state.placement.size()));
}

const std::array kJobColumns{
    JobColumn{"job_id", "", "the trace's id", false,
              [](std::string& out, const JobRow& row) { append_csv_field(out, row.spec.id); }},
    JobColumn{"submission_time", "s", "*s*, when the trace submits the job", false,
              [](std::string& out, const JobRow& row) { append_seconds(out, row.spec.submit_ms); }},
    JobColumn{"requested_number_of_resources", "GPUs", "GPUs the job asks for", false,
              [](std::string& out, const JobRow& row) { append_int(out, row.spec.gpus); }},
    JobColumn{
        "requested_time", "s", "the walltime policies saw", false,
        [](std::string& out, const JobRow& row) { append_seconds(out, row.state.walltime_ms); }},
    JobColumn{"starting_time", "s", "*b*, the first start", false, unless_rejected<starting_time>},
    JobColumn{"execution_time", "s", "*f − b*", false, unless_rejected<execution_time>},
    JobColumn{"finish_time", "s", "*f*, the end of the last attempt", false,
              unless_rejected<finish_time>},
    JobColumn{"waiting_time", "s", "*b − s*", false, unless_rejected<waiting_time>},
    JobColumn{"turnaround_time", "s", "*f − s*", false, unless_rejected<turnaround_time>},
    JobColumn{"stretch", "ratio", "turnaround / execution (1 when the execution took no time)",
              false, unless_rejected<stretch>},
    JobColumn{"allocated_resources", "",
              "global GPU ids of the last attempt as Batsim intervals (\"0-7 16-19\"); GPU ids "
              "number the nodes' GPUs consecutively in cluster-spec order",
              false, unless_rejected<allocated_resources>},
    JobColumn{"consumed_energy", "J",
              "energy drawn by the job's GPUs while it held them (busy board power × time; with "
              "--node-power also its fraction of its nodes' base power; times the PUE if set)",
              false, unless_rejected<consumed_energy>},
    JobColumn{
        "final_state", "", "COMPLETED_SUCCESSFULLY, COMPLETED_WALLTIME_REACHED or REJECTED", false,
        [](std::string& out, const JobRow& row) { out += batsim_final_state(row.state.status); }},
    JobColumn{"bounded_slowdown", "ratio", "as defined above", false,
              unless_rejected<job_bounded_slowdown>},
    JobColumn{"restarts", "count", "times the job was interrupted and had to restart", false,
              [](std::string& out, const JobRow& row) { append_int(out, row.state.restarts); }},
    JobColumn{"user", "", "the trace's user", false,
              [](std::string& out, const JobRow& row) {
                append_csv_field(out, row.trace.strings.str(row.spec.user));
              }},
    JobColumn{"priority", "", "the trace's priority", false,
              [](std::string& out, const JobRow& row) { append_int(out, row.spec.priority); }},
    JobColumn{"preemptions", "count", "interruptions by the policy", false,
              [](std::string& out, const JobRow& row) { append_int(out, row.state.preemptions); }},
    JobColumn{
        "lost_gpu_seconds", "GPU-s", "GPU-seconds redone or spent on restart overhead", false,
        [](std::string& out, const JobRow& row) { append_seconds(out, row.state.lost_gpu_ms); }},
    JobColumn{"status", "",
              "the trace's own status of the job (e.g. Pass, Killed, Failed; COMPLETED, "
              "CANCELLED), empty if its format has none (docs/traces.md)",
              false,
              [](std::string& out, const JobRow& row) {
                append_csv_field(out, row.trace.strings.str(row.spec.status));
              }},
    JobColumn{"tenant", "", "the trace's tenant (virtual cluster, group), empty if none", false,
              [](std::string& out, const JobRow& row) {
                append_csv_field(out, row.trace.strings.str(row.spec.tenant));
              }},
    JobColumn{"gpu_type", "",
              "the GPU type of the last attempt's GPUs (types joined with `+`, in node order, "
              "when it spanned several); empty for a rejected job",
              false, unless_rejected<gpu_type>},
    JobColumn{"queued_time", "s",
              "time queued in all: *f − s − r* (first wait plus every wait after a requeue); "
              "empty for a rejected job",
              false, unless_rejected<queued_time>},
    JobColumn{"slowdown_factor", "ratio",
              "cluster models only ([cluster.md](cluster.md#outputs)): the last attempt's "
              "slowdown (reference speed / progress rate)",
              true, unless_rejected<slowdown_factor>},
    JobColumn{"nodes", "count", "cluster models only: nodes the last attempt spanned", true,
              unless_rejected<nodes>},
    JobColumn{"failures", "count", "cluster models only: attempts killed by node failures", true,
              [](std::string& out, const JobRow& row) { append_int(out, row.state.failures); }},
};

const std::array kAttemptColumns{
    AttemptColumn{
        "job_id", "", "the trace's id",
        [](std::string& out, const AttemptRow& row) { append_csv_field(out, row.spec.id); }},
    AttemptColumn{"attempt", "", "1, 2, ...",
                  [](std::string& out, const AttemptRow& row) { append_int(out, row.number); }},
    AttemptColumn{
        "start_time", "s", "when the attempt took its GPUs",
        [](std::string& out, const AttemptRow& row) { append_seconds(out, row.start_ms); }},
    AttemptColumn{"end_time", "s", "when the attempt gave its GPUs back",
                  [](std::string& out, const AttemptRow& row) { append_seconds(out, row.end_ms); }},
    AttemptColumn{"gpus", "GPUs", "GPUs held",
                  [](std::string& out, const AttemptRow& row) {
                    append_int(out, placement_gpu_count(row.placement));
                  }},
    AttemptColumn{"allocated_resources", "", "global GPU ids, as in jobs.csv",
                  [](std::string& out, const AttemptRow& row) {
                    row.cluster.append_gpu_id_ranges(out, row.placement);
                  }},
    AttemptColumn{"nodes", "count", "nodes spanned",
                  [](std::string& out, const AttemptRow& row) {
                    append_int(out, static_cast<std::int64_t>(row.placement.size()));
                  }},
    AttemptColumn{"end_reason", "",
                  "completed, preempted, failed (node failure) or walltime (killed at its "
                  "walltime)",
                  [](std::string& out, const AttemptRow& row) { out += row.end_reason; }},
};

}  // namespace

std::span<const JobColumn> job_columns() {
  return kJobColumns;
}

std::span<const AttemptColumn> attempt_columns() {
  return kAttemptColumns;
}

namespace {

// `columns` (those `shown` keeps) joined with ',', each written by `write(column)`, then '\n'.
template <typename Column, typename Shown, typename Write>
void append_line(std::string& out, std::span<const Column> columns, Shown shown, Write write) {
  bool first = true;
  for (const Column& column : columns) {
    if (!shown(column)) continue;
    if (!first) out += ',';
    first = false;
    write(column);
  }
  out += '\n';
}

bool always(const AttemptColumn& /*column*/) {
  return true;
}

}  // namespace

std::string job_csv_header(bool cluster_models) {
  std::string header;
  append_line(
      header, job_columns(),
      [&](const JobColumn& column) { return cluster_models || !column.cluster_models_only; },
      [&](const JobColumn& column) { header += column.name; });
  return header;
}

void append_job_row(std::string& out, const JobRow& row, bool cluster_models) {
  append_line(
      out, job_columns(),
      [&](const JobColumn& column) { return cluster_models || !column.cluster_models_only; },
      [&](const JobColumn& column) { column.write(out, row); });
}

std::string attempt_csv_header() {
  std::string header;
  append_line(header, attempt_columns(), always,
              [&](const AttemptColumn& column) { header += column.name; });
  return header;
}

void append_attempt_row(std::string& out, const AttemptRow& row) {
  append_line(out, attempt_columns(), always,
              [&](const AttemptColumn& column) { column.write(out, row); });
}

}  // namespace schedlab
