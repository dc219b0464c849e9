// The report's Gantt chart: which job held which GPU when, from a run's attempts.csv.
//
// Rows are GPUs grouped by node (a label per node, a line between nodes), top to bottom in GPU
// id order; bars are attempts clipped to a time window, coloured by tenant (or, when no job has
// a tenant, by job size class), with a mark at the end of an attempt that was preempted or
// failed. The drawing stays bounded whatever the run's size:
//   - up to kMaxBars attempt bars in the window: one <rect> per bar, with a <title> tooltip;
//   - more bars: the window is cut into kBucketPx-wide time buckets and each row draws, per
//     bucket, the category that kept it busiest, shaded by how busy it was (four levels);
//     neighbouring buckets of the same colour and shade merge into one stretch;
//   - more than kMaxGpuRows GPUs: the rows aggregate, one per node (or per group of
//     neighbouring nodes, at most kMaxAggregateRows rows), always bucketed: the shade is the
//     busy share of that row's GPUs.
// So the SVG has at most rows x buckets stretches, whatever the number of jobs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "schedlab/report_svg.hpp"

namespace schedlab::report {

inline constexpr std::size_t kMaxGpuRows = 256;
inline constexpr std::size_t kMaxAggregateRows = 256;
inline constexpr std::size_t kMaxBars = 3000;
inline constexpr int kBucketPx = 3;
inline constexpr double kDaySeconds = 86400;

enum class AttemptEnd : std::uint8_t { kCompleted, kPreempted, kFailed, kWalltime };

struct GanttAttempt {
  std::uint32_t job = 0;  // index into GanttRun::job_ids
  std::uint32_t attempt = 0;
  double start_s = 0;
  double end_s = 0;
  std::uint32_t gpus = 0;
  AttemptEnd end = AttemptEnd::kCompleted;
  std::uint32_t first_range = 0;  // GPU id ranges: GanttRun::ranges[first_range, +range_count)
  std::uint32_t range_count = 0;
};

// The attempts of one run, and the cluster shape they ran on.
struct GanttRun {
  std::size_t nodes = 0;
  std::size_t gpus = 0;
  std::vector<std::string> job_ids;
  std::vector<std::string> tenants;  // per job ("" when none)
  std::vector<GanttAttempt> attempts;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // inclusive GPU id ranges
};

// Reads attempts.csv of a run on a cluster of `nodes` nodes and `gpus` GPUs; `tenants` maps
// job ids to tenants (from jobs.csv; may be empty). Throws ConfigError "PATH:LINE: ..." for
// malformed rows, unknown end reasons and GPU ids outside the cluster.
GanttRun read_attempts(const std::string& path, std::size_t nodes, std::size_t gpus,
                       const std::unordered_map<std::string, std::string>& tenants);

// The busy GPU-seconds of `runs` together over [from_s, to_s).
double busy_gpu_seconds(const std::vector<const GanttRun*>& runs, double from_s, double to_s);

// The window of `length_s` with the most busy GPU time of `runs` together (the earliest among
// equals); when the runs span no more than `length_s`, their whole span (first start to last
// end). nullopt when there is no attempt.
std::optional<std::pair<double, double>> busiest_window(const std::vector<const GanttRun*>& runs,
                                                        double length_s = kDaySeconds);

// What the bars' colours mean, shared by every Gantt chart of a report so that one tenant has
// one colour throughout.
struct GanttCategories {
  std::string kind;  // "tenant" or "job size"
  std::vector<std::string> labels;
  std::vector<std::string> colors;
  std::unordered_map<std::string, std::uint16_t> tenant_index;  // tenant -> label index
  std::optional<std::uint16_t> other;                           // the "other tenants" bucket
  std::uint16_t of(const GanttRun& run, const GanttAttempt& a) const;
};

// By tenant when any job has one: the kMaxTenantColors tenants with the most busy GPU time
// (over the whole runs; ties by name) get their own colour, the rest share "other tenants".
// Otherwise by job size: 1 GPU, 2-4, 5-8, 9-32, 33+ GPUs.
inline constexpr std::size_t kMaxTenantColors = kTenantColorCount;
GanttCategories gantt_categories(const std::vector<const GanttRun*>& runs);

struct GanttChart {
  std::string svg;
  std::string caption;  // what the rows, colours and marks are; how it was aggregated
  std::size_t rows = 0;
  bool aggregated = false;  // rows are nodes (or groups of nodes) rather than GPUs
  bool bucketed = false;    // drawn as time buckets rather than one bar per attempt
  std::size_t bars = 0;     // attempts in the window
};

GanttChart render_gantt(const std::string& title, const GanttRun& run,
                        const GanttCategories& categories, double from_s, double to_s);

}  // namespace schedlab::report
