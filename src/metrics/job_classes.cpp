#include "schedlab/job_classes.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/metrics.hpp"
#include "schedlab/output.hpp"
#include "schedlab/trace_filter.hpp"

namespace schedlab {

namespace {

// "10m", "1h", "1d" or seconds, as the bounds are written back in labels.
std::string duration_text(TimeMs ms) {
  constexpr TimeMs kDay = 86'400'000;
  constexpr TimeMs kHour = 3'600'000;
  constexpr TimeMs kMinute = 60'000;
  if (ms % kDay == 0) return fmt::format("{}d", ms / kDay);
  if (ms % kHour == 0) return fmt::format("{}h", ms / kHour);
  if (ms % kMinute == 0) return fmt::format("{}m", ms / kMinute);
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  return fmt::format("{}s", static_cast<double>(ms) / 1000.0);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  for (const std::string_view part : split_on(text, ',')) parts.emplace_back(trim(part));
  return parts;
}

template <typename T>
void require_ascending(const std::string& option, const std::string& text,
                       const std::vector<T>& bounds) {
  for (std::size_t i = 1; i < bounds.size(); ++i)
    if (!(bounds[i - 1] < bounds[i]))
      throw ConfigError(fmt::format("{} '{}': expected strictly ascending bounds", option, text));
}

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) sum += v;
  return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
}

}  // namespace

std::optional<JobClassKind> parse_job_class_kind(std::string_view text) {
  for (const JobClassKind kind :
       {JobClassKind::kSize, JobClassKind::kDuration, JobClassKind::kTenant, JobClassKind::kUser})
    if (text == job_class_kind_name(kind)) return kind;
  return std::nullopt;
}

const char* job_class_kind_name(JobClassKind kind) {
  switch (kind) {
    case JobClassKind::kSize: return "size";
    case JobClassKind::kDuration: return "duration";
    case JobClassKind::kTenant: return "tenant";
    case JobClassKind::kUser: return "user";
  }
  return "?";
}

std::vector<std::int64_t> parse_size_bounds(const std::string& option, const std::string& text) {
  std::vector<std::int64_t> out;
  for (const auto& part : split_list(text)) {
    const auto value = parse_int(part);
    if (!value || *value <= 0)
      throw ConfigError(fmt::format("{} '{}': expected GPU counts > 0 separated by ',', got '{}'",
                                    option, text, part));
    out.push_back(*value);
  }
  require_ascending(option, text, out);
  return out;
}

std::vector<TimeMs> parse_duration_bounds(const std::string& option, const std::string& text) {
  std::vector<TimeMs> out;
  for (const auto& part : split_list(text)) {
    auto ms = parse_seconds_ms(part);
    if (!ms) ms = parse_time_with_unit(part);
    if (!ms || *ms <= 0)
      throw ConfigError(fmt::format(
          "{} '{}': expected times > 0 (seconds, or with a unit: 90s, 30m, 12h, 2d) separated "
          "by ',', got '{}'",
          option, text, part));
    out.push_back(*ms);
  }
  require_ascending(option, text, out);
  return out;
}

std::vector<std::string> job_class_labels(JobClassKind kind, const JobClassBounds& bounds) {
  std::vector<std::string> out;
  if (kind == JobClassKind::kSize) {
    std::int64_t low = 1;
    for (const std::int64_t high : bounds.size_upper) {
      out.push_back(low == high ? fmt::format("{}", high) : fmt::format("{}-{}", low, high));
      low = high + 1;
    }
    out.push_back(fmt::format("{}+", low));
  } else if (kind == JobClassKind::kDuration) {
    std::string low;
    for (const TimeMs high : bounds.duration_upper_ms) {
      out.push_back(low.empty() ? "<=" + duration_text(high) : low + "-" + duration_text(high));
      low = duration_text(high);
    }
    out.push_back(">" + low);
  }
  return out;
}

nlohmann::ordered_json job_class_json(const std::vector<ClassedJob>& jobs, JobClassKind kind,
                                      const JobClassBounds& bounds) {
  struct Values {
    std::vector<double> wait, queued, jct, slowdown;
  };
  // Classes by label, in class order.
  std::vector<std::string> labels = job_class_labels(kind, bounds);
  std::map<std::string, Values> by_name;  // tenant and user classes, sorted by name
  std::vector<Values> ordered(labels.size());
  for (const ClassedJob& job : jobs) {
    Values* values = nullptr;
    if (kind == JobClassKind::kSize) {
      const auto it =
          std::lower_bound(bounds.size_upper.begin(), bounds.size_upper.end(), job.gpus);
      values = &ordered[static_cast<std::size_t>(it - bounds.size_upper.begin())];
    } else if (kind == JobClassKind::kDuration) {
      const auto it = std::lower_bound(bounds.duration_upper_ms.begin(),
                                       bounds.duration_upper_ms.end(), job.work_ms);
      values = &ordered[static_cast<std::size_t>(it - bounds.duration_upper_ms.begin())];
    } else {
      const std::string_view name = kind == JobClassKind::kTenant ? job.tenant : job.user;
      values = &by_name[name.empty() ? std::string("(none)") : std::string(name)];
    }
    values->wait.push_back(job.wait_s);
    values->queued.push_back(job.queued_s);
    values->jct.push_back(job.jct_s);
    values->slowdown.push_back(job.bounded_slowdown);
  }
  if (kind == JobClassKind::kTenant || kind == JobClassKind::kUser) {
    for (auto& [name, values] : by_name) {
      labels.push_back(name);
      ordered.push_back(std::move(values));
    }
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (std::size_t c = 0; c < labels.size(); ++c) {
    Values& v = ordered[c];
    nlohmann::ordered_json row;
    row["jobs"] = v.wait.size();
    if (!v.wait.empty()) {
      std::sort(v.wait.begin(), v.wait.end());
      row["wait_s"] = {{"mean", round_to(mean_of(v.wait), 3)},
                       {"p95", round_to(percentile(v.wait, 95), 3)}};
      row["queued_s"] = {{"mean", round_to(mean_of(v.queued), 3)}};
      row["jct_s"] = {{"mean", round_to(mean_of(v.jct), 3)}};
      row["bounded_slowdown"] = {{"mean", round_to(mean_of(v.slowdown), 6)}};
    }
    out[labels[c]] = std::move(row);
  }
  return out;
}

const std::vector<std::string_view>& job_class_metric_keys() {
  static const std::vector<std::string_view> kKeys = {"wait_s.mean", "wait_s.p95", "queued_s.mean",
                                                      "jct_s.mean", "bounded_slowdown.mean"};
  return kKeys;
}

std::optional<double> job_class_value(const nlohmann::ordered_json& row, std::string_view key) {
  const auto dot = key.find('.');
  const std::string group(key.substr(0, dot));
  const std::string stat(key.substr(dot + 1));
  if (!row.contains(group) || !row[group].contains(stat)) return std::nullopt;
  return row[group][stat].get<double>();
}

}  // namespace schedlab
