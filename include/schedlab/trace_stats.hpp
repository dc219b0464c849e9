// Statistics of a loaded trace, as `schedlab validate` prints them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/job.hpp"

namespace schedlab {

struct TraceStats {
  std::uint64_t jobs = 0;
  std::uint64_t skipped = 0;  // sum of trace.skipped
  TimeMs first_submit_ms = 0;
  TimeMs last_submit_ms = 0;
  TimeMs last_end_ms = 0;  // max(submit + duration): the end if nothing ever queued
  // Jobs per GPU count, ascending by GPU count.
  std::vector<std::pair<std::int32_t, std::uint64_t>> gpu_histogram;
  // Durations in seconds; percentiles interpolate linearly between closest ranks.
  double duration_mean_s = 0, duration_p50_s = 0, duration_p90_s = 0, duration_p99_s = 0;
  double duration_min_s = 0, duration_max_s = 0;
  double gpu_hours = 0;  // sum of gpus x duration
  // Largest sum of GPUs of jobs running at once if each ran from submit for its duration.
  std::int64_t peak_gpus = 0;
  TimeMs peak_at_ms = 0;  // first instant the peak is reached
  // Original statuses (first-seen order; "" = none given) and distinct tenants / users.
  std::vector<std::pair<std::string, std::uint64_t>> statuses;
  std::uint64_t tenants = 0;
  std::uint64_t users = 0;
  std::uint64_t with_walltime = 0;
  std::uint64_t with_gpu_type = 0;
};

// Requires a non-empty trace.
TraceStats compute_trace_stats(const Trace& trace);

// Fixed key order; seconds at 3 decimals, GPU-hours at 3 decimals.
nlohmann::ordered_json trace_stats_json(const Trace& trace, const TraceStats& stats);
// Human-readable block of lines for a terminal.
std::string format_trace_stats(const Trace& trace, const TraceStats& stats);

}  // namespace schedlab
