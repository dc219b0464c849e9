#include "report_gantt.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/report_svg.hpp"
#include "schedlab/trace.hpp"

namespace schedlab::report {

namespace {

// Job size classes: GPUs up to each bound.
constexpr std::array<std::uint32_t, 5> kSizeBounds = {1, 4, 8, 32, 0xFFFFFFFFu};
constexpr std::array<const char*, 5> kSizeLabels = {"1 GPU", "2-4 GPUs", "5-8 GPUs", "9-32 GPUs",
                                                    "33+ GPUs"};

AttemptEnd parse_end(std::string_view text, const CsvReader& reader) {
  if (text == "completed") return AttemptEnd::kCompleted;
  if (text == "preempted") return AttemptEnd::kPreempted;
  if (text == "failed") return AttemptEnd::kFailed;
  if (text == "walltime") return AttemptEnd::kWalltime;
  throw ConfigError(fmt::format(
      "{}:{}: column 'end_reason': expected completed, preempted, failed or walltime, got '{}'",
      reader.file(), reader.line(), text));
}

// Busy GPUs as a step function: (time, change) sorted by time.
std::vector<std::pair<double, double>> busy_steps(const std::vector<const GanttRun*>& runs) {
  std::vector<std::pair<double, double>> steps;
  for (const GanttRun* run : runs) {
    for (const auto& a : run->attempts) {
      if (!(a.end_s > a.start_s)) continue;
      steps.emplace_back(a.start_s, static_cast<double>(a.gpus));
      steps.emplace_back(a.end_s, -static_cast<double>(a.gpus));
    }
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

// The integral of the busy GPUs from the first step: C(t), piecewise linear.
struct BusyIntegral {
  std::vector<double> times;   // distinct step times
  std::vector<double> before;  // integral up to times[i]
  std::vector<double> rate;    // busy GPUs from times[i] to times[i + 1]

  explicit BusyIntegral(const std::vector<std::pair<double, double>>& steps) {
    double level = 0, integral = 0;
    for (std::size_t i = 0; i < steps.size();) {
      const double t = steps[i].first;
      if (!times.empty()) integral += rate.back() * (t - times.back());
      for (; i < steps.size() && steps[i].first == t; ++i) level += steps[i].second;
      times.push_back(t);
      before.push_back(integral);
      rate.push_back(std::max(0.0, level));
    }
  }
  double operator()(double t) const {
    if (times.empty() || t <= times.front()) return 0.0;
    const auto it = std::upper_bound(times.begin(), times.end(), t);
    const std::size_t i = static_cast<std::size_t>(it - times.begin()) - 1;
    return before[i] + rate[i] * (t - times[i]);
  }
};

}  // namespace

GanttRun read_attempts(const std::string& path, std::size_t nodes, std::size_t gpus,
                       const std::unordered_map<std::string, std::string>& tenants) {
  const std::string text = read_file_bytes(path);
  CsvReader reader(text, path);
  std::vector<std::string_view> fields;
  if (!reader.next_row(fields))
    throw ConfigError(fmt::format("{}: empty file (expected a header row)", path));
  const CsvHeader header(fields, path, reader.line());
  const auto column = [&](const char* name) {
    const auto index = header.find(name);
    if (!index) throw ConfigError(fmt::format("{}:1: missing column '{}'", path, name));
    return *index;
  };
  const std::size_t c_job = column("job_id"), c_attempt = column("attempt"),
                    c_start = column("start_time"), c_end = column("end_time"),
                    c_gpus = column("gpus"), c_ids = column("allocated_resources"),
                    c_reason = column("end_reason");
  const std::size_t width = std::max({c_job, c_attempt, c_start, c_end, c_gpus, c_ids, c_reason});
  GanttRun run;
  run.nodes = nodes;
  run.gpus = gpus;
  std::unordered_map<std::string, std::uint32_t> job_index;
  const auto bad = [&](const char* name, std::string_view value, const char* expected) {
    return ConfigError(fmt::format("{}:{}: column '{}': expected {}, got '{}'", path, reader.line(),
                                   name, expected, value));
  };
  while (reader.next_row(fields)) {
    if (fields.size() <= width)
      throw ConfigError(fmt::format("{}:{}: expected {} fields, got {}", path, reader.line(),
                                    header.names().size(), fields.size()));
    GanttAttempt a;
    const std::string id(trim(fields[c_job]));
    const auto [it, fresh] = job_index.emplace(id, static_cast<std::uint32_t>(run.job_ids.size()));
    if (fresh) {
      run.job_ids.push_back(id);
      const auto tenant = tenants.find(id);
      run.tenants.push_back(tenant == tenants.end() ? "" : tenant->second);
    }
    a.job = it->second;
    const auto attempt = parse_int(fields[c_attempt]);
    if (!attempt || *attempt < 1) throw bad("attempt", fields[c_attempt], "an integer >= 1");
    a.attempt = static_cast<std::uint32_t>(*attempt);
    const auto start = parse_double(fields[c_start]);
    const auto end = parse_double(fields[c_end]);
    if (!start || !std::isfinite(*start)) throw bad("start_time", fields[c_start], "a number");
    if (!end || !std::isfinite(*end) || *end < *start)
      throw bad("end_time", fields[c_end], "a number >= start_time");
    a.start_s = *start;
    a.end_s = *end;
    const auto count = parse_int(fields[c_gpus]);
    if (!count || *count < 0) throw bad("gpus", fields[c_gpus], "an integer >= 0");
    a.gpus = static_cast<std::uint32_t>(*count);
    a.end = parse_end(trim(fields[c_reason]), reader);
    a.first_range = static_cast<std::uint32_t>(run.ranges.size());
    std::string_view ids = trim(fields[c_ids]);
    std::uint64_t listed = 0;
    while (!ids.empty()) {
      const std::size_t space = ids.find(' ');
      const std::string_view token = ids.substr(0, space);
      ids = space == std::string_view::npos ? std::string_view() : trim(ids.substr(space + 1));
      const std::size_t dash = token.find('-');
      const auto lo = parse_int(token.substr(0, dash));
      const auto hi = dash == std::string_view::npos ? lo : parse_int(token.substr(dash + 1));
      if (!lo || !hi || *lo < 0 || *hi < *lo)
        throw bad("allocated_resources", fields[c_ids], "GPU ids such as '0-7 16'");
      if (static_cast<std::uint64_t>(*hi) >= gpus)
        throw ConfigError(fmt::format("{}:{}: GPU id {} outside the cluster's {} GPUs", path,
                                      reader.line(), *hi, gpus));
      run.ranges.emplace_back(static_cast<std::uint32_t>(*lo), static_cast<std::uint32_t>(*hi));
      listed += static_cast<std::uint64_t>(*hi - *lo + 1);
    }
    a.range_count = static_cast<std::uint32_t>(run.ranges.size() - a.first_range);
    if (listed != a.gpus)
      throw ConfigError(fmt::format("{}:{}: {} GPUs, but allocated_resources lists {}", path,
                                    reader.line(), a.gpus, listed));
    run.attempts.push_back(a);
  }
  return run;
}

double busy_gpu_seconds(const std::vector<const GanttRun*>& runs, double from_s, double to_s) {
  double total = 0;
  for (const GanttRun* run : runs)
    for (const auto& a : run->attempts)
      total += std::max(0.0, std::min(a.end_s, to_s) - std::max(a.start_s, from_s)) * a.gpus;
  return total;
}

std::optional<std::pair<double, double>> busiest_window(const std::vector<const GanttRun*>& runs,
                                                        double length_s) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const GanttRun* run : runs)
    for (const auto& a : run->attempts) {
      lo = std::min(lo, a.start_s);
      hi = std::max(hi, a.end_s);
    }
  if (!(hi >= lo)) return std::nullopt;
  if (hi - lo <= length_s) return std::pair{lo, hi};
  const BusyIntegral integral(busy_steps(runs));
  // The busy time in [t, t + length) is piecewise linear in t, with corners where t or
  // t + length meets a step: its maximum is at one of those t.
  std::vector<double> candidates = {lo, hi - length_s};
  for (const double t : integral.times) {
    candidates.push_back(t);
    candidates.push_back(t - length_s);
  }
  std::sort(candidates.begin(), candidates.end());
  double best_t = lo, best = -1;
  for (const double t : candidates) {
    if (t < lo || t > hi - length_s) continue;
    const double busy = integral(t + length_s) - integral(t);
    if (busy > best + 1e-9 * std::max(1.0, best)) {
      best = busy;
      best_t = t;
    }
  }
  return std::pair{best_t, best_t + length_s};
}

std::uint16_t GanttCategories::of(const GanttRun& run, const GanttAttempt& a) const {
  if (kind == "tenant") {
    const auto it = tenant_index.find(run.tenants[a.job]);
    return it != tenant_index.end() ? it->second : other.value_or(0);
  }
  std::size_t k = 0;
  while (k + 1 < kSizeBounds.size() && a.gpus > kSizeBounds[k]) ++k;
  return static_cast<std::uint16_t>(k);
}

GanttCategories gantt_categories(const std::vector<const GanttRun*>& runs) {
  GanttCategories out;
  std::map<std::string, double> busy;  // tenant -> busy GPU-seconds
  bool any_tenant = false;
  for (const GanttRun* run : runs)
    for (const auto& a : run->attempts) {
      const std::string& tenant = run->tenants[a.job];
      any_tenant = any_tenant || !tenant.empty();
      busy[tenant] += (a.end_s - a.start_s) * a.gpus;
    }
  for (const GanttRun* run : runs)  // tenants of jobs that never ran still get a rank
    for (const auto& tenant : run->tenants) busy.emplace(tenant, 0.0);
  if (!any_tenant) {
    out.kind = "job size";
    for (std::size_t k = 0; k < kSizeLabels.size(); ++k) {
      out.labels.emplace_back(kSizeLabels[k]);
      out.colors.emplace_back(tenant_color(k));
    }
    return out;
  }
  out.kind = "tenant";
  std::vector<std::pair<std::string, double>> ranked(busy.begin(), busy.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const bool overflow = ranked.size() > kMaxTenantColors;
  for (std::size_t i = 0; i < ranked.size() && i < kMaxTenantColors; ++i) {
    out.tenant_index[ranked[i].first] = static_cast<std::uint16_t>(out.labels.size());
    out.labels.push_back(ranked[i].first.empty() ? "(no tenant)" : ranked[i].first);
    out.colors.emplace_back(tenant_color(i));
  }
  if (overflow) {
    out.other = static_cast<std::uint16_t>(out.labels.size());
    out.labels.push_back(fmt::format("{} other tenants", ranked.size() - kMaxTenantColors));
    out.colors.emplace_back(tenant_color(kTenantColorCount));
  }
  return out;
}

}  // namespace schedlab::report
