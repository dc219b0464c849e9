// Job classes: who wins and who pays. A run's finished jobs grouped by GPU count, by work
// (the trace's duration), by tenant or by user, with each class's mean and p95 wait, mean time
// queued, mean JCT and mean bounded slowdown (the definitions of docs/metrics.md). `compare --by`
// prints them per policy.
//
// Contract: classes come in a fixed order: size and duration by their bounds, ascending;
// tenant and user by name (byte order; jobs without one form the class "(none)"). A size
// class "2-4" holds jobs of 2 to 4 GPUs; the last class of a kind holds everything above the
// last bound ("9+", ">1d"). Rejected jobs are left out. A class with no job is listed with
// jobs 0 and no metrics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/types.hpp"

namespace schedlab {

enum class JobClassKind : std::uint8_t { kSize, kDuration, kTenant, kUser };

// "size", "duration", "tenant", "user"; nullopt for another text.
std::optional<JobClassKind> parse_job_class_kind(std::string_view text);
const char* job_class_kind_name(JobClassKind kind);

struct JobClassBounds {
  // Upper bounds of the size classes but the last, GPUs, ascending: 1, 2-4, 5-8, 9+.
  std::vector<std::int64_t> size_upper = {1, 4, 8};
  // Upper bounds (inclusive) of the duration classes but the last, ascending: up to 10 min,
  // 10 min-1 h, 1-6 h, 6 h-1 d, over 1 d.
  std::vector<TimeMs> duration_upper_ms = {600'000, 3'600'000, 21'600'000, 86'400'000};
};
// "1,4,8": GPU counts > 0, strictly ascending. Throws ConfigError naming `option` and the value.
std::vector<std::int64_t> parse_size_bounds(const std::string& option, const std::string& text);
// "10m,1h,6h,1d": times > 0 (seconds, or with a unit: s, m, h, d), strictly ascending.
std::vector<TimeMs> parse_duration_bounds(const std::string& option, const std::string& text);

// The label of each class of a size or duration kind, in order ("1", "2-4", "5-8", "9+";
// "<=10m", "10m-1h", ..., ">1d").
std::vector<std::string> job_class_labels(JobClassKind kind, const JobClassBounds& bounds);

// One finished job as the classes see it.
struct ClassedJob {
  std::int64_t gpus = 0;
  TimeMs work_ms = 0;  // the trace's duration
  std::string_view tenant;
  std::string_view user;
  double wait_s = 0;
  double queued_s = 0;
  double jct_s = 0;
  double bounded_slowdown = 0;
};

// {label: {"jobs", "wait_s": {"mean", "p95"}, "queued_s": {"mean"}, "jct_s": {"mean"},
// "bounded_slowdown": {"mean"}}} in class order; times rounded to 3 decimals, slowdown to 6.
nlohmann::ordered_json job_class_json(const std::vector<ClassedJob>& jobs, JobClassKind kind,
                                      const JobClassBounds& bounds);

// The metrics of every class, as keys within a class row of job_class_json: "wait_s.mean",
// "wait_s.p95", "queued_s.mean", "jct_s.mean", "bounded_slowdown.mean" (all lower is better).
const std::vector<std::string_view>& job_class_metric_keys();

// A class row's value of one of those keys; nullopt for a class without jobs.
std::optional<double> job_class_value(const nlohmann::ordered_json& row, std::string_view key);

}  // namespace schedlab
