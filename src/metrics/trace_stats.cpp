#include "schedlab/trace_stats.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/metrics.hpp"
#include "schedlab/output.hpp"

namespace schedlab {

TraceStats compute_trace_stats(const Trace& trace) {
  SCHEDLAB_ASSERT(!trace.jobs.empty(), "statistics of a non-empty trace");
  TraceStats s;
  s.jobs = trace.jobs.size();
  for (const auto& entry : trace.skipped) s.skipped += entry.second;
  s.first_submit_ms = trace.jobs.front().submit_ms;
  s.last_submit_ms = trace.jobs.front().submit_ms;
  std::map<std::int32_t, std::uint64_t> histogram;
  std::vector<double> durations;
  durations.reserve(trace.jobs.size());
  // Status counts by string id: ids are assigned in first-seen order, so index order is
  // first-seen order of the statuses that occur.
  std::vector<std::uint64_t> status_counts(trace.strings.size(), 0);
  std::vector<StringId> status_order;
  std::vector<char> tenant_seen(trace.strings.size(), 0), user_seen(trace.strings.size(), 0);
  struct Change {
    TimeMs at_ms;
    std::int64_t delta;
  };
  std::vector<Change> changes;
  changes.reserve(2 * trace.jobs.size());
  double gpu_ms = 0;
  double sum_s = 0;
  for (const auto& job : trace.jobs) {
    s.first_submit_ms = std::min(s.first_submit_ms, job.submit_ms);
    s.last_submit_ms = std::max(s.last_submit_ms, job.submit_ms);
    s.last_end_ms = std::max(s.last_end_ms, job.submit_ms + job.duration_ms);
    ++histogram[job.gpus];
    const double d = static_cast<double>(job.duration_ms) / 1000.0;
    durations.push_back(d);
    sum_s += d;
    gpu_ms += static_cast<double>(job.gpus) * static_cast<double>(job.duration_ms);
    if (status_counts[job.status]++ == 0) status_order.push_back(job.status);
    if (job.tenant != 0 && !tenant_seen[job.tenant]) {
      tenant_seen[job.tenant] = 1;
      ++s.tenants;
    }
    if (job.user != 0 && !user_seen[job.user]) {
      user_seen[job.user] = 1;
      ++s.users;
    }
    if (job.walltime_ms != kUnsetMs) ++s.with_walltime;
    if (job.gpu_type != 0) ++s.with_gpu_type;
    changes.push_back({job.submit_ms, job.gpus});
    changes.push_back({job.submit_ms + job.duration_ms, -static_cast<std::int64_t>(job.gpus)});
  }
  s.gpu_histogram.assign(histogram.begin(), histogram.end());
  std::sort(durations.begin(), durations.end());
  s.duration_min_s = durations.front();
  s.duration_max_s = durations.back();
  s.duration_mean_s = sum_s / static_cast<double>(durations.size());
  s.duration_p50_s = percentile(durations, 50);
  s.duration_p90_s = percentile(durations, 90);
  s.duration_p99_s = percentile(durations, 99);
  s.gpu_hours = gpu_ms / kMsPerHour;
  // A job holds its GPUs over [submit, submit + duration): at equal times ends come first.
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return a.at_ms != b.at_ms ? a.at_ms < b.at_ms : a.delta < b.delta;
  });
  std::int64_t current = 0;
  for (const auto& c : changes) {
    current += c.delta;
    if (current > s.peak_gpus) {
      s.peak_gpus = current;
      s.peak_at_ms = c.at_ms;
    }
  }
  for (StringId id : status_order)
    s.statuses.emplace_back(trace.strings.str(id), status_counts[id]);
  return s;
}

namespace {

double secs(TimeMs ms) {
  return round_to(static_cast<double>(ms) / 1000.0, 3);
}

}  // namespace

nlohmann::ordered_json trace_stats_json(const Trace& trace, const TraceStats& s) {
  nlohmann::ordered_json out;
  out["trace"] = trace.path;
  out["format"] = trace.format;
  out["jobs"] = s.jobs;
  nlohmann::ordered_json skipped = nlohmann::ordered_json::object();
  for (const auto& [reason, n] : trace.skipped) skipped[reason] = n;
  out["skipped"] = skipped;
  out["span_s"] = {{"first_submit", secs(s.first_submit_ms)},
                   {"last_submit", secs(s.last_submit_ms)},
                   {"last_end_no_queueing", secs(s.last_end_ms)}};
  nlohmann::ordered_json histogram = nlohmann::ordered_json::object();
  for (const auto& [gpus, n] : s.gpu_histogram) histogram[std::to_string(gpus)] = n;
  out["gpus_per_job"] = histogram;
  out["duration_s"] = {
      {"min", round_to(s.duration_min_s, 3)}, {"mean", round_to(s.duration_mean_s, 3)},
      {"p50", round_to(s.duration_p50_s, 3)}, {"p90", round_to(s.duration_p90_s, 3)},
      {"p99", round_to(s.duration_p99_s, 3)}, {"max", round_to(s.duration_max_s, 3)}};
  out["gpu_hours"] = round_to(s.gpu_hours, 3);
  out["peak_gpu_demand"] = {{"gpus", s.peak_gpus}, {"at_s", secs(s.peak_at_ms)}};
  nlohmann::ordered_json statuses = nlohmann::ordered_json::object();
  for (const auto& [status, n] : s.statuses) statuses[status] = n;
  out["statuses"] = statuses;
  out["tenants"] = s.tenants;
  out["users"] = s.users;
  out["jobs_with_walltime"] = s.with_walltime;
  out["jobs_with_gpu_type"] = s.with_gpu_type;
  return out;
}

std::string format_trace_stats(const Trace& trace, const TraceStats& s) {
  std::string out;
  auto line = [&out](const std::string& key, const std::string& value) {
    out += fmt::format("{:<22}{}\n", key, value);
  };
  line("trace", trace.path);
  line("format", trace.format);
  line("jobs", std::to_string(s.jobs));
  std::string skipped = std::to_string(s.skipped);
  if (!trace.skipped.empty()) {
    skipped += " (";
    for (std::size_t i = 0; i < trace.skipped.size(); ++i)
      skipped +=
          fmt::format("{}{} {}", i ? ", " : "", trace.skipped[i].second, trace.skipped[i].first);
    skipped += ")";
  }
  line("skipped", skipped);
  const double span_s = static_cast<double>(s.last_submit_ms - s.first_submit_ms) / 1000.0;
  line("submissions",
       fmt::format("{:.3f} s to {:.3f} s (span {:.3f} s = {:.2f} d)",
                   static_cast<double>(s.first_submit_ms) / 1000.0,
                   static_cast<double>(s.last_submit_ms) / 1000.0, span_s, span_s / 86400.0));
  line("last end, no queueing",
       fmt::format("{:.3f} s", static_cast<double>(s.last_end_ms) / 1000.0));
  std::string histogram;
  for (const auto& [gpus, n] : s.gpu_histogram)
    histogram += fmt::format("{}{}: {} ({:.1f}%)", histogram.empty() ? "" : ", ", gpus, n,
                             100.0 * static_cast<double>(n) / static_cast<double>(s.jobs));
  line("GPUs per job", histogram);
  line("duration (s)",
       fmt::format("min {:.3f}, mean {:.3f}, p50 {:.3f}, p90 {:.3f}, p99 {:.3f}, max {:.3f}",
                   s.duration_min_s, s.duration_mean_s, s.duration_p50_s, s.duration_p90_s,
                   s.duration_p99_s, s.duration_max_s));
  line("GPU-hours", fmt::format("{:.3f}", s.gpu_hours));
  line("peak GPU demand", fmt::format("{} GPUs at {:.3f} s (each job running from its submission)",
                                      s.peak_gpus, static_cast<double>(s.peak_at_ms) / 1000.0));
  std::string statuses;
  for (const auto& [status, n] : s.statuses)
    statuses +=
        fmt::format("{}{} {}", statuses.empty() ? "" : ", ", status.empty() ? "(none)" : status, n);
  line("statuses", statuses);
  line("tenants", std::to_string(s.tenants));
  line("users", std::to_string(s.users));
  line("with walltime", std::to_string(s.with_walltime));
  line("with gpu_type", std::to_string(s.with_gpu_type));
  return out;
}

}  // namespace schedlab
