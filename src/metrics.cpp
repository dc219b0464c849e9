#include "schedlab/metrics.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/output.hpp"

namespace schedlab {

namespace {

constexpr double kJoulesPerKwh = 3.6e6;
constexpr TimeMs kBoundedSlowdownThresholdMs = 10'000;

std::string csv_escape(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

double seconds(TimeMs ms) { return static_cast<double>(ms) / kMsPerSecond; }

nlohmann::ordered_json distribution(std::vector<double> values, bool wide) {
  nlohmann::ordered_json out;
  std::sort(values.begin(), values.end());
  const bool empty = values.empty();
  double sum = 0;
  for (double v : values) sum += v;
  auto p = [&](double q) { return empty ? 0.0 : round_to(percentile(values, q), 3); };
  out["mean"] = empty ? 0.0 : round_to(sum / static_cast<double>(values.size()), 3);
  out["p50"] = p(50);
  if (wide) out["p90"] = p(90);
  out["p95"] = p(95);
  if (wide) out["p99"] = p(99);
  out["max"] = empty ? 0.0 : round_to(values.back(), 3);
  return out;
}

}  // namespace

double percentile(const std::vector<double>& sorted, double p) {
  SCHEDLAB_ASSERT(!sorted.empty(), "percentile of a non-empty sample");
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

void MetricsCollector::on_begin(const SchedContext& ctx) {
  ctx_ = &ctx;
  interval_ms_ = std::max<TimeMs>(1, ctx.options().timeseries_interval_ms);
  total_gpus_ = ctx.cluster().total_gpus();
  type_total_gpus_.clear();
  for (GpuTypeIndex t = 0; t < ctx.cluster().gpu_types().size(); ++t)
    type_total_gpus_.push_back(ctx.cluster().total_gpus_of(t));
  totals_ = Totals{};
  uncommitted_.clear();
  series_.clear();
}

void MetricsCollector::on_advance(const SchedContext& ctx, TimeMs from_ms, TimeMs to_ms) {
  const Cluster& cluster = ctx.cluster();
  Segment s;
  s.from_ms = from_ms;
  s.to_ms = to_ms;
  s.busy_gpus = cluster.busy_gpus();
  s.queued_jobs = static_cast<std::int64_t>(ctx.queued_jobs());
  s.queued_gpus = ctx.queued_gpus();
  s.running_jobs = static_cast<std::int64_t>(ctx.running().size());
  const auto& types = cluster.gpu_types();
  for (GpuTypeIndex t = 0; t < types.size(); ++t) {
    if (type_total_gpus_[t] == 0) continue;
    const auto busy = static_cast<double>(cluster.busy_gpus_of_type(t));
    s.busy_power_w += busy * types[t].busy_power_w;
    s.idle_power_w += (static_cast<double>(type_total_gpus_[t]) - busy) * types[t].idle_power_w;
  }
  uncommitted_.push_back(s);
}

void MetricsCollector::on_job(const SchedContext& /*ctx*/, JobIndex /*job*/, JobTransition what) {
  if (what != JobTransition::kCompleted && what != JobTransition::kWalltimeReached) return;
  for (const auto& segment : uncommitted_) commit(segment);
  uncommitted_.clear();
}

void MetricsCollector::on_end(const SchedContext& /*ctx*/) { uncommitted_.clear(); }

void MetricsCollector::commit(const Segment& s) {
  const auto dt = static_cast<double>(s.to_ms - s.from_ms);
  totals_.span_ms += s.to_ms - s.from_ms;
  totals_.busy_gpu_ms += static_cast<double>(s.busy_gpus) * dt;
  totals_.capacity_gpu_ms += static_cast<double>(total_gpus_) * dt;
  if (s.queued_jobs > 0)
    totals_.idle_while_waiting_gpu_ms += static_cast<double>(total_gpus_ - s.busy_gpus) * dt;
  totals_.energy_busy_j += s.busy_power_w * dt / kMsPerSecond;
  totals_.energy_idle_j += s.idle_power_w * dt / kMsPerSecond;
  add_to_series(s);
}

void MetricsCollector::add_to_series(const Segment& s) {
  // Rows are aligned to multiples of the interval from time 0.
  TimeMs t = s.from_ms;
  while (t < s.to_ms) {
    const TimeMs row_start = t / interval_ms_ * interval_ms_;
    const TimeMs row_end = std::min(s.to_ms, row_start + interval_ms_);
    if (series_.empty() || series_.back().start_ms != row_start) {
      SCHEDLAB_ASSERT(series_.empty() || series_.back().start_ms < row_start, "series rows ascend");
      series_.push_back(SeriesRow{row_start, 0, 0, 0, 0, 0, 0});
    }
    SeriesRow& row = series_.back();
    const auto dt = static_cast<double>(row_end - t);
    row.covered_ms += row_end - t;
    row.busy_gpu_ms += static_cast<double>(s.busy_gpus) * dt;
    row.queued_jobs_ms += static_cast<double>(s.queued_jobs) * dt;
    row.queued_gpus_ms += static_cast<double>(s.queued_gpus) * dt;
    row.running_jobs_ms += static_cast<double>(s.running_jobs) * dt;
    row.energy_j += (s.busy_power_w + s.idle_power_w) * dt / kMsPerSecond;
    t = row_end;
  }
}

nlohmann::ordered_json MetricsCollector::summary_json(const RunInfo& info) const {
  SCHEDLAB_ASSERT(ctx_ != nullptr, "summary rendered after a run");
  const Trace& trace = ctx_->trace();
  const Cluster& cluster = ctx_->cluster();
  std::uint64_t completed = 0;
  std::uint64_t rejected = 0;
  std::uint64_t restarts = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t walltime_kills = 0;
  double lost_gpu_ms = 0;
  std::vector<double> waits;
  std::vector<double> jcts;
  std::vector<double> slowdowns;
  waits.reserve(trace.jobs.size());
  jcts.reserve(trace.jobs.size());
  slowdowns.reserve(trace.jobs.size());
  for (JobIndex j = 0; j < trace.jobs.size(); ++j) {
    const JobState& s = ctx_->state(j);
    const JobSpec& spec = trace.jobs[j];
    restarts += s.restarts;
    preemptions += s.preemptions;
    lost_gpu_ms += static_cast<double>(s.lost_gpu_ms);
    if (s.status == JobStatus::kRejected) {
      ++rejected;
      continue;
    }
    SCHEDLAB_ASSERT(s.status == JobStatus::kCompleted || s.status == JobStatus::kWalltimeReached,
                    "every job ends completed, killed or rejected");
    if (s.status == JobStatus::kCompleted) ++completed;
    else ++walltime_kills;
    const TimeMs turnaround_ms = s.finish_ms - spec.submit_ms;
    waits.push_back(seconds(s.first_start_ms - spec.submit_ms));
    jcts.push_back(seconds(turnaround_ms));
    slowdowns.push_back(std::max(1.0, static_cast<double>(turnaround_ms) /
                                          static_cast<double>(std::max(s.run_ms, kBoundedSlowdownThresholdMs))));
  }
  nlohmann::ordered_json out;
  out["policy"] = info.policy;
  out["trace"] = info.trace;
  out["cluster"] = {{"nodes", cluster.node_count()}, {"gpus", cluster.total_gpus()}};
  out["jobs"] = {{"submitted", trace.jobs.size()}, {"completed", completed}, {"rejected", rejected}};
  if (walltime_kills > 0 || !ctx_->options().walltime_kill) out["jobs"]["walltime_reached"] = walltime_kills;
  out["makespan_s"] = round_to(seconds(totals_.span_ms), 3);
  out["wait_s"] = distribution(std::move(waits), true);
  out["jct_s"] = distribution(std::move(jcts), true);
  {
    auto bsld = distribution(std::move(slowdowns), false);
    for (auto& [key, value] : bsld.items()) value = round_to(value.get<double>(), 6);
    out["bounded_slowdown"] = bsld;
  }
  out["utilization"] =
      totals_.capacity_gpu_ms > 0 ? round_to(totals_.busy_gpu_ms / totals_.capacity_gpu_ms, 6) : 0.0;
  out["gpu_hours"] = {
      {"capacity", round_to(totals_.capacity_gpu_ms / kMsPerHour, 6)},
      {"busy", round_to(totals_.busy_gpu_ms / kMsPerHour, 6)},
      {"idle", round_to((totals_.capacity_gpu_ms - totals_.busy_gpu_ms) / kMsPerHour, 6)},
      {"idle_while_jobs_wait", round_to(totals_.idle_while_waiting_gpu_ms / kMsPerHour, 6)},
      {"lost", round_to(lost_gpu_ms / kMsPerHour, 6)},
  };
  out["energy_kwh"] = {
      {"total", round_to((totals_.energy_busy_j + totals_.energy_idle_j) / kJoulesPerKwh, 6)},
      {"gpu_busy", round_to(totals_.energy_busy_j / kJoulesPerKwh, 6)},
      {"gpu_idle", round_to(totals_.energy_idle_j / kJoulesPerKwh, 6)},
  };
  out["restarts"] = {{"total", restarts}, {"preemptions", preemptions}, {"walltime_kills", walltime_kills}};
  out["engine"] = {{"events", info.engine.events},
                   {"instants", info.engine.instants},
                   {"wall_s", round_to(info.wall_s, 3)}};
  const RunOptions& options = ctx_->options();
  out["options"] = {{"placement", options.placement},
                    {"estimate", estimate_name(options)},
                    {"walltime_kill", options.walltime_kill},
                    {"checkpoint_interval_s", round_to(seconds(options.checkpoint_interval_ms), 3)},
                    {"restart_overhead_s", round_to(seconds(options.restart_overhead_ms), 3)},
                    {"seed", options.seed}};
  // What the trace reader did: format and jobs skipped (and filtered out) by reason.
  nlohmann::ordered_json skipped = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : trace.skipped) skipped[reason] = count;
  out["trace_info"] = {{"path", trace.path}, {"format", trace.format}, {"skipped", skipped}};
  return out;
}

std::string MetricsCollector::jobs_csv() const {
  SCHEDLAB_ASSERT(ctx_ != nullptr, "jobs.csv rendered after a run");
  const Trace& trace = ctx_->trace();
  const Cluster& cluster = ctx_->cluster();
  fmt::memory_buffer out;
  out.reserve(trace.jobs.size() * 160 + 256);
  fmt::format_to(std::back_inserter(out),
                 "job_id,submission_time,requested_number_of_resources,requested_time,"
                 "starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
                 "allocated_resources,consumed_energy,final_state,bounded_slowdown,restarts,user,"
                 "priority,preemptions,lost_gpu_seconds,status\n");
  for (JobIndex j = 0; j < trace.jobs.size(); ++j) {
    const JobSpec& spec = trace.jobs[j];
    const JobState& s = ctx_->state(j);
    const std::string& user = trace.strings.str(spec.user);
    const std::string& status = trace.strings.str(spec.status);  // the trace's own status, if any
    if (s.status == JobStatus::kRejected) {
      fmt::format_to(std::back_inserter(out), "{},{:.3f},{},{:.3f},,,,,,,,,{},,{},{},{},{},{:.3f},{}\n",
                     csv_escape(spec.id), seconds(spec.submit_ms), spec.gpus, seconds(s.walltime_ms),
                     batsim_final_state(s.status), s.restarts, csv_escape(user), spec.priority,
                     s.preemptions, 0.0, csv_escape(status));
      continue;
    }
    const TimeMs execution_ms = s.finish_ms - s.first_start_ms;
    const TimeMs turnaround_ms = s.finish_ms - spec.submit_ms;
    const double stretch = execution_ms > 0 ? static_cast<double>(turnaround_ms) / static_cast<double>(execution_ms) : 1.0;
    const double bsld = std::max(1.0, static_cast<double>(turnaround_ms) /
                                          static_cast<double>(std::max(s.run_ms, kBoundedSlowdownThresholdMs)));
    fmt::format_to(std::back_inserter(out),
                   "{},{:.3f},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.6f},{},{:.3f},{},{:.6f},{},{},{},{},{:.3f},{}\n",
                   csv_escape(spec.id), seconds(spec.submit_ms), spec.gpus, seconds(s.walltime_ms),
                   seconds(s.first_start_ms), seconds(execution_ms), seconds(s.finish_ms),
                   seconds(s.first_start_ms - spec.submit_ms), seconds(turnaround_ms), round_to(stretch, 6),
                   cluster.gpu_id_ranges(s.placement), round_to(s.energy_j, 3), batsim_final_state(s.status),
                   round_to(bsld, 6), s.restarts, csv_escape(user), spec.priority, s.preemptions,
                   seconds(s.lost_gpu_ms), csv_escape(status));
  }
  return fmt::to_string(out);
}

std::string MetricsCollector::timeseries_csv() const {
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out),
                 "time_s,busy_gpus,idle_gpus,queued_jobs,queued_gpus,running_jobs,power_w\n");
  for (const auto& row : series_) {
    const auto covered = static_cast<double>(row.covered_ms);
    const double busy = row.busy_gpu_ms / covered;
    fmt::format_to(std::back_inserter(out), "{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f}\n",
                   seconds(row.start_ms), round_to(busy, 3),
                   round_to(static_cast<double>(total_gpus_) - busy, 3),
                   round_to(row.queued_jobs_ms / covered, 3), round_to(row.queued_gpus_ms / covered, 3),
                   round_to(row.running_jobs_ms / covered, 3),
                   round_to(row.energy_j * kMsPerSecond / covered, 3));
  }
  return fmt::to_string(out);
}

}  // namespace schedlab
