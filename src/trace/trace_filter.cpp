#include "schedlab/trace_filter.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {

namespace {

// The number of seconds `text` ("90", "30m", "12h", "2d") stands for; nullopt if not a number
// >= 0. May be beyond the clock's limit.
std::optional<double> seconds_with_unit(std::string_view text) {
  text = trim(text);
  double scale = 1.0;
  if (!text.empty()) {
    switch (text.back()) {
      case 's': scale = 1.0; break;
      case 'm': scale = 60.0; break;
      case 'h': scale = 3600.0; break;
      case 'd': scale = 86400.0; break;
      default: scale = 0.0;
    }
    if (scale != 0.0)
      text.remove_suffix(1);
    else
      scale = 1.0;
  }
  const auto value = parse_double(text);
  if (!value || *value < 0) return std::nullopt;
  return *value * scale;
}

}  // namespace

std::optional<TimeMs> parse_time_with_unit(std::string_view text) {
  const auto seconds = seconds_with_unit(text);
  if (!seconds) return std::nullopt;
  return seconds_to_ms(*seconds);
}

bool time_with_unit_too_large(std::string_view text) {
  const auto seconds = seconds_with_unit(text);
  return seconds && !seconds_to_ms(*seconds);
}

namespace {

void split_list(std::string_view text, std::vector<std::string>& out) {
  for (const std::string_view part : split_on(text, ',')) {
    const std::string_view item = trim(part);
    if (!item.empty()) out.emplace_back(item);
  }
}

bool in_list(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

TraceFilter parse_trace_filter(const std::vector<std::string>& items) {
  TraceFilter filter;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    auto fail = [&item](const std::string& why) {
      return ConfigError(fmt::format("--filter '{}': {}", item, why));
    };
    if (eq == std::string::npos)
      throw fail("expected KEY=VALUE with KEY one of from, to, tenant, user, status, limit");
    const std::string key(trim(std::string_view(item).substr(0, eq)));
    const std::string_view value = trim(std::string_view(item).substr(eq + 1));
    if (key == "from" || key == "to") {
      const auto ms = parse_time_with_unit(value);
      if (!ms && time_with_unit_too_large(value))
        throw fail(fmt::format("too large: at most {}", kMaxTimeText));
      if (!ms) throw fail("expected a time >= 0 in seconds, or with a unit: 90s, 30m, 12h, 2d");
      (key == "from" ? filter.from_ms : filter.to_ms) = *ms;
    } else if (key == "tenant" || key == "vc") {
      split_list(value, filter.tenants);
      if (filter.tenants.empty()) throw fail("expected one or more names separated by commas");
    } else if (key == "user") {
      split_list(value, filter.users);
      if (filter.users.empty()) throw fail("expected one or more names separated by commas");
    } else if (key == "status") {
      split_list(value, filter.statuses);
      if (filter.statuses.empty()) throw fail("expected one or more statuses separated by commas");
    } else if (key == "limit") {
      const auto n = parse_int(value);
      if (!n || *n < 1) throw fail("expected an integer >= 1");
      filter.limit = static_cast<std::uint64_t>(*n);
    } else {
      throw fail(
          fmt::format("unknown key '{}' (known: from, to, tenant, user, status, limit)", key));
    }
  }
  if (filter.from_ms && filter.to_ms && *filter.to_ms <= *filter.from_ms)
    throw ConfigError(fmt::format("--filter: the window is empty (to {} s <= from {} s)",
                                  static_cast<double>(*filter.to_ms) / 1000.0,
                                  static_cast<double>(*filter.from_ms) / 1000.0));
  return filter;
}

void apply_trace_filter(Trace& trace, const TraceFilter& filter) {
  if (!filter.active()) return;
  trace_kit::SkipCounter counts;
  for (const auto& entry : trace.skipped) counts.add(entry.first, entry.second);
  std::vector<JobSpec> kept;
  kept.reserve(trace.jobs.size());
  for (auto& job : trace.jobs) {
    if (filter.from_ms && job.submit_ms < *filter.from_ms) {
      counts.add("filtered out: from");
    } else if (filter.to_ms && job.submit_ms >= *filter.to_ms) {
      counts.add("filtered out: to");
    } else if (!filter.tenants.empty() && !in_list(filter.tenants, trace.strings.str(job.tenant))) {
      counts.add("filtered out: tenant");
    } else if (!filter.users.empty() && !in_list(filter.users, trace.strings.str(job.user))) {
      counts.add("filtered out: user");
    } else if (!filter.statuses.empty() &&
               !in_list(filter.statuses, trace.strings.str(job.status))) {
      counts.add("filtered out: status");
    } else {
      kept.push_back(std::move(job));
    }
  }
  if (filter.limit && kept.size() > *filter.limit) {
    // The first N by (submit time, trace order), kept in trace order.
    std::vector<std::size_t> order(kept.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto n = static_cast<std::ptrdiff_t>(*filter.limit);
    std::nth_element(
        order.begin(), order.begin() + n - 1, order.end(), [&](std::size_t a, std::size_t b) {
          return kept[a].submit_ms != kept[b].submit_ms ? kept[a].submit_ms < kept[b].submit_ms
                                                        : a < b;
        });
    const std::size_t last = order[static_cast<std::size_t>(n - 1)];
    std::vector<JobSpec> limited;
    limited.reserve(*filter.limit);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const bool in = kept[i].submit_ms < kept[last].submit_ms ||
                      (kept[i].submit_ms == kept[last].submit_ms && i <= last);
      if (in) limited.push_back(std::move(kept[i]));
    }
    counts.add("filtered out: limit", kept.size() - limited.size());
    kept = std::move(limited);
  }
  trace.jobs = std::move(kept);
  counts.move_into(trace);
  if (trace.jobs.empty())
    throw ConfigError(fmt::format("{}: --filter left no jobs ({})", trace.path,
                                  trace_kit::describe_skipped(trace.skipped)));
}

}  // namespace schedlab
