#include "schedlab/metric_catalog.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/output.hpp"

namespace schedlab {

namespace {

using D = MetricDirection;

// Statistics of one per-job distribution (metrics.cpp `distribution`), in summary.json order.
#define SCHEDLAB_DISTRIBUTION(base, unit, decimals, name, what)                                \
  {base ".mean", unit, D::kLowerIsBetter, "mean " name, "mean " what, decimals},               \
      {base ".p50", unit, D::kLowerIsBetter, "median " name, "median " what, decimals},        \
      {base ".p90", unit, D::kLowerIsBetter, "90th percentile " name, "90th percentile " what, \
       decimals},                                                                              \
      {base ".p95", unit, D::kLowerIsBetter, "95th percentile " name, "95th percentile " what, \
       decimals},                                                                              \
      {base ".p99", unit, D::kLowerIsBetter, "99th percentile " name, "99th percentile " what, \
       decimals},                                                                              \
  {                                                                                            \
    base ".max", unit, D::kLowerIsBetter, "max " name, "largest " what, decimals               \
  }

constexpr MetricInfo kCatalog[] = {
    {"trace.skipped", "count", D::kNeutral, "jobs skipped",
     "jobs of the trace left out, by reason (reader skips, then --filter)", 0, true},
    {"cluster.nodes", "count", D::kNeutral, "nodes", "nodes in the cluster", 0},
    {"cluster.gpus", "count", D::kNeutral, "GPUs", "GPUs in the cluster", 0},
    {"cluster.gpu_types", "count", D::kNeutral, "GPUs of a type", "GPUs in the cluster, by type", 0,
     true},
    {"jobs.submitted", "count", D::kNeutral, "jobs submitted", "jobs in the trace after --filter",
     0},
    {"jobs.completed", "count", D::kHigherIsBetter, "jobs completed", "jobs that ran to their end",
     0},
    {"jobs.rejected", "count", D::kLowerIsBetter, "jobs rejected", "jobs rejected at submit", 0},
    {"jobs.rejected_reasons", "count", D::kLowerIsBetter, "jobs rejected by reason",
     "rejected jobs by reason (present only when jobs were rejected)", 0, true},
    {"makespan_s", "s", D::kLowerIsBetter, "makespan",
     "length of the run window, first submit to last finish", 1},
    SCHEDLAB_DISTRIBUTION("wait_s", "s", 1, "wait", "wait (first start - submit)"),
    SCHEDLAB_DISTRIBUTION("queued_s", "s", 1, "time queued",
                          "time queued (first wait plus every wait after a requeue)"),
    SCHEDLAB_DISTRIBUTION("jct_s", "s", 1, "job completion time",
                          "job completion time (finish - submit)"),
    {"bounded_slowdown.mean", "ratio", D::kLowerIsBetter, "mean bounded slowdown",
     "mean of max(1, turnaround / max(work, 10 s)), work being the trace's duration", 3},
    {"bounded_slowdown.p50", "ratio", D::kLowerIsBetter, "median bounded slowdown",
     "median bounded slowdown", 3},
    {"bounded_slowdown.p95", "ratio", D::kLowerIsBetter, "95th percentile bounded slowdown",
     "95th percentile bounded slowdown", 3},
    {"bounded_slowdown.max", "ratio", D::kLowerIsBetter, "max bounded slowdown",
     "largest bounded slowdown", 3},
    {"utilization", "fraction", D::kHigherIsBetter, "GPU utilization",
     "busy GPU-time / capacity, from 0 to 1", 4},
    {"gpu_hours.capacity", "GPU-h", D::kNeutral, "GPU-hours capacity", "total GPUs x run window",
     2},
    {"gpu_hours.busy", "GPU-h", D::kNeutral, "GPU-hours busy", "GPU-time held by jobs", 2},
    {"gpu_hours.idle", "GPU-h", D::kLowerIsBetter, "GPU-hours idle", "capacity - busy", 2},
    {"gpu_hours.idle_while_jobs_wait", "GPU-h", D::kLowerIsBetter, "idle GPU-hours while jobs wait",
     "idle GPU-time while at least one job was queued", 2},
    {"gpu_hours.lost", "GPU-h", D::kLowerIsBetter, "lost work",
     "GPU-time redone after interruptions plus restart overhead", 2},
    {"gpu_hours.wasted", "GPU-h", D::kLowerIsBetter, "wasted GPU-hours",
     "GPU-time that produced no kept work: lost work plus every attempt of walltime-killed jobs",
     2},
    // Cluster models: down time is the failure model's input; off time is a means (its effect is
    // in energy_kwh), so neither has a direction of its own.
    {"gpu_hours.down", "GPU-h", D::kNeutral, "GPU-hours down",
     "GPU-time on failed nodes (cluster models)", 2},
    {"gpu_hours.off", "GPU-h", D::kNeutral, "GPU-hours off",
     "GPU-time on nodes powered off or booting (cluster models)", 2},
    {"energy_kwh.total", "kWh", D::kLowerIsBetter, "total energy",
     "energy drawn: GPU boards, with cluster models the whole facility", 1},
    {"energy_kwh.gpu_busy", "kWh", D::kLowerIsBetter, "energy of busy GPUs",
     "busy GPUs x their busy board power", 1},
    {"energy_kwh.gpu_idle", "kWh", D::kLowerIsBetter, "energy of idle GPUs",
     "idle GPUs x their idle board power", 1},
    {"energy_kwh.node_base", "kWh", D::kLowerIsBetter, "node base energy",
     "node base power of nodes on (cluster models)", 1},
    {"energy_kwh.off", "kWh", D::kLowerIsBetter, "energy of nodes off",
     "power of nodes off (cluster models)", 1},
    {"energy_kwh.boot", "kWh", D::kLowerIsBetter, "boot energy",
     "power of nodes booting (cluster models)", 1},
    {"energy_kwh.facility", "kWh", D::kLowerIsBetter, "facility overhead energy",
     "IT energy x (PUE - 1) (cluster models)", 1},
    {"emissions_kg", "kg", D::kLowerIsBetter, "emissions",
     "CO2 of the facility energy at the grid's intensity (with --carbon)", 3},
    {"restarts.total", "count", D::kLowerIsBetter, "restarts",
     "interruptions, each forcing a restart", 0},
    {"restarts.preemptions", "count", D::kLowerIsBetter, "preemptions",
     "interruptions by the policy", 0},
    {"restarts.walltime_kills", "count", D::kLowerIsBetter, "walltime kills",
     "jobs killed at their walltime", 0},
    {"restarts.failures", "count", D::kLowerIsBetter, "failure restarts",
     "attempts killed by node failures (cluster models)", 0},
    {"engine.events", "count", D::kNeutral, "events", "events applied (stale ends excluded)", 0},
    {"engine.instants", "count", D::kNeutral, "instants",
     "distinct times at which events were applied", 0},
    {"engine.wall_s", "s", D::kNeverGated, "simulation wall time",
     "wall-clock seconds of the simulation loop (0 with --reproducible)", 3},
    {kOptionsGroup, "", D::kNeutral, "options",
     "the run's options as given (inputs, not results; left out of sweep aggregates)", 3, true},
    // Per tenant (with --tenants or a tenant policy; docs/tenants.md). `*` is the tenant's name.
    {"tenants.*.quota_gpus", "count", D::kNeutral, "quota", "the tenant's nominal quota in GPUs",
     0},
    {"tenants.*.weight", "", D::kNeutral, "weight", "the tenant's fair-share weight", 3},
    {"tenants.*.jobs.submitted", "count", D::kNeutral, "jobs submitted",
     "the tenant's jobs in the trace", 0},
    {"tenants.*.jobs.completed", "count", D::kHigherIsBetter, "jobs completed",
     "the tenant's jobs that ran to their end", 0},
    {"tenants.*.jobs.rejected", "count", D::kLowerIsBetter, "jobs rejected",
     "the tenant's jobs rejected at submit", 0},
    {"tenants.*.wait_s.mean", "s", D::kLowerIsBetter, "mean wait", "the tenant's mean wait", 1},
    {"tenants.*.wait_s.p95", "s", D::kLowerIsBetter, "95th percentile wait",
     "the tenant's 95th percentile wait", 1},
    {"tenants.*.wait_s.max", "s", D::kLowerIsBetter, "max wait", "the tenant's largest wait", 1},
    {"tenants.*.jct_s.mean", "s", D::kLowerIsBetter, "mean job completion time",
     "the tenant's mean job completion time", 1},
    {"tenants.*.bounded_slowdown.mean", "ratio", D::kLowerIsBetter, "mean bounded slowdown",
     "the tenant's mean bounded slowdown", 3},
    {"tenants.*.gpu_hours", "GPU-h", D::kNeutral, "GPU-hours", "GPU-time the tenant's jobs held",
     2},
    {"tenants.*.entitled_share", "fraction", D::kNeutral, "entitled share",
     "the tenant's weight / the sum of weights", 4},
    {"tenants.*.received_share", "fraction", D::kNeutral, "received share",
     "the tenant's GPU-time / all tenants' GPU-time", 4},
    {"tenants.*.waited_under_entitlement_share", "fraction", D::kLowerIsBetter,
     "waited under entitlement",
     "of the time the tenant had jobs queued, the share in which one of them would have fit "
     "within its entitled share of the cluster beside what it held",
     4},
    {"tenants.*.waited_under_entitlement_s", "s", D::kLowerIsBetter, "waited under entitlement",
     "time in which one of the tenant's queued jobs would have fit within its entitled share "
     "beside what it held",
     1},
    {"tenants.*.entitlement_deficit_gpu_h", "GPU-h", D::kLowerIsBetter, "entitlement deficit",
     "integral of max(0, min(held + queued GPUs, entitled GPUs) - held)", 2},
    {"tenants.*.demand_fair_gpu_h", "GPU-h", D::kNeutral, "fair allocation while jobs wait",
     "integral of the tenant's weighted max-min fair allocation given every tenant's demand, "
     "while some job waits",
     2},
    {"tenants.*.demand_received_gpu_h", "GPU-h", D::kNeutral, "received while jobs wait",
     "integral of the GPUs the tenant held while some job waits", 2},
    {"tenants.*.demand_share", "ratio", D::kHigherIsBetter, "demand-aware share",
     "GPU time received / weighted max-min fair allocation, while some job waits (null when "
     "nothing was owed)",
     4},
    {"tenants.*.finish_time_fairness", "ratio", D::kLowerIsBetter, "finish-time fairness",
     "the tenant's mean JCT / its mean JCT alone on its entitled partition (with "
     "--isolated-baseline)",
     3},
    {"fairness.tenants", "count", D::kNeutral, "tenants", "tenants of the run", 0},
    {"fairness.demand_share_jain", "ratio", D::kHigherIsBetter,
     "Jain's index of demand-aware shares",
     "Jain's index of the tenants' demand-aware shares (1 = every tenant received its weighted "
     "max-min fair allocation while jobs waited)",
     4},
    {"fairness.demand_share_min", "ratio", D::kHigherIsBetter, "smallest demand-aware share",
     "the smallest demand-aware share of a tenant (null when no job waited)", 4},
    {"fairness.whole_run_share_jain", "ratio", D::kHigherIsBetter,
     "Jain's index of whole-run shares",
     "Jain's index of received / entitled share over the whole run, tenants with jobs (describes "
     "the workload when every job runs)",
     4},
    {"fairness.worst_mean_bounded_slowdown", "ratio", D::kLowerIsBetter,
     "worst tenant's mean bounded slowdown", "the largest mean bounded slowdown of a tenant", 3},
    {"fairness.entitlement_deficit_gpu_h", "GPU-h", D::kLowerIsBetter, "entitlement deficit",
     "the tenants' entitlement deficits summed", 2},
    {"fairness.wait_max_min_ratio", "ratio", D::kLowerIsBetter, "max/min mean wait",
     "largest / smallest mean wait of a tenant (null when the smallest is 0 and the largest "
     "is not)",
     3},
    {"fairness.max_finish_time_fairness", "ratio", D::kLowerIsBetter, "max finish-time fairness",
     "the largest finish-time fairness of a tenant (with --isolated-baseline)", 3},
};

#undef SCHEDLAB_DISTRIBUTION

}  // namespace

const char* direction_text(MetricDirection direction) {
  switch (direction) {
    case MetricDirection::kLowerIsBetter: return "lower is better";
    case MetricDirection::kHigherIsBetter: return "higher is better";
    case MetricDirection::kNeutral: return "no direction";
    case MetricDirection::kNeverGated: return "timing, never gated";
    case MetricDirection::kUnknown: return "unknown metric";
  }
  return "unknown metric";
}

std::span<const MetricInfo> metric_catalog() {
  return kCatalog;
}

bool key_has_prefix(std::string_view key, std::string_view prefix) {
  return key == prefix ||
         (key.size() > prefix.size() && key.starts_with(prefix) && key[prefix.size()] == '.');
}

// Whether `key` matches a catalog key with one `*` (any non-empty text, dots included).
bool wildcard_match(std::string_view pattern, std::string_view key) {
  const std::size_t star = pattern.find('*');
  if (star == std::string_view::npos) return false;
  const std::string_view before = pattern.substr(0, star);
  const std::string_view after = pattern.substr(star + 1);
  return key.size() > before.size() + after.size() && key.starts_with(before) &&
         key.ends_with(after);
}

const MetricInfo* find_metric(std::string_view key) {
  const MetricInfo* best = nullptr;
  for (const auto& metric : kCatalog) {
    if (metric.key == key || wildcard_match(metric.key, key)) return &metric;
    if (metric.group && key_has_prefix(key, metric.key) &&
        (best == nullptr || metric.key.size() > best->key.size()))
      best = &metric;
  }
  return best;
}

const MetricInfo& catalog_metric(std::string_view key) {
  const MetricInfo* metric = find_metric(key);
  SCHEDLAB_ASSERT(metric != nullptr, "the metric is in the catalog");
  return *metric;
}

MetricDirection metric_direction(std::string_view key) {
  const MetricInfo* metric = find_metric(key);
  return metric ? metric->direction : MetricDirection::kUnknown;
}

std::string metric_value_text(const MetricInfo& metric, double value) {
  return fixed(value, metric.decimals);
}

namespace {

// `value` (>= 0) with three significant digits, never in exponent form.
std::string three_digits(double value) {
  const int decimals = value < 9.995 ? 2 : value < 99.95 ? 1 : 0;
  return fixed(value, decimals);
}

}  // namespace

std::string human_duration_text(double seconds) {
  if (!std::isfinite(seconds)) return fixed(seconds, 0);
  if (seconds == 0) return "0 s";
  const std::string sign = seconds < 0 ? "-" : "";
  const double s = std::fabs(seconds);
  if (s < 0.9995) return sign + three_digits(s * 1000) + " ms";
  if (s < 119.5) return sign + three_digits(s) + " s";
  if (s < 119.5 * 60) return sign + three_digits(s / 60) + " min";
  if (s < 47.95 * 3600) return sign + three_digits(s / 3600) + " h";
  return sign + three_digits(s / 86400) + " d";
}

std::string metric_human_text(const MetricInfo& metric, double value) {
  if (metric.unit == "s") return human_duration_text(value);
  if (metric.unit == "fraction") return fixed(value * 100, 1) + " %";
  if (metric.unit.empty() || metric.unit == "count" || metric.unit == "ratio")
    return metric_value_text(metric, value);
  return fmt::format("{} {}", metric_value_text(metric, value), metric.unit);
}

std::span<const std::string_view> compared_metric_keys() {
  static constexpr std::string_view kCompared[] = {
      "wait_s.mean",
      "wait_s.p95",
      "queued_s.mean",
      "jct_s.mean",
      "bounded_slowdown.mean",
      "utilization",
      "gpu_hours.idle_while_jobs_wait",
      "restarts.total",
      "gpu_hours.lost",
      "gpu_hours.wasted",
      "energy_kwh.total",
  };
  return kCompared;
}

}  // namespace schedlab
