// Selecting part of a loaded trace: a submission-time window, tenants (virtual clusters),
// users, original statuses, and a job limit. Used by run, validate, convert and gen --like.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schedlab/job.hpp"

namespace schedlab {

struct TraceFilter {
  std::optional<TimeMs> from_ms;       // keep submit_ms >= from_ms
  std::optional<TimeMs> to_ms;         // keep submit_ms < to_ms
  std::vector<std::string> tenants;    // keep these tenants / virtual clusters (empty: all)
  std::vector<std::string> users;      // keep these users (empty: all)
  std::vector<std::string> statuses;   // keep these original statuses (empty: all)
  std::optional<std::uint64_t> limit;  // then keep the first N by submit time (ties: file order)
  bool active() const {
    return from_ms || to_ms || !tenants.empty() || !users.empty() || !statuses.empty() || limit;
  }
};

// A time of at least 0 in seconds, or with a unit: "3600", "90s", "30m", "12h", "2d" -> ms;
// nullopt otherwise.
std::optional<TimeMs> parse_time_with_unit(std::string_view text);
// True if `text` is a time as above but beyond the clock's limit (kMaxTimeText).
bool time_with_unit_too_large(std::string_view text);

// Parses repeatable "--filter KEY=VALUE" items: from=TIME, to=TIME (seconds of trace time, or
// with a unit: 90s, 30m, 12h, 2d), tenant=A[,B...], user=A[,B...], status=A[,B...], limit=N.
// Repeating list keys adds to the list. Throws ConfigError naming the item.
TraceFilter parse_trace_filter(const std::vector<std::string>& items);

// Removes the jobs the filter rejects, in place (order kept), and counts them in
// trace.skipped as "filtered out: <key>" (the first test a job fails). Times are not shifted.
// Throws ConfigError if no job is left.
void apply_trace_filter(Trace& trace, const TraceFilter& filter);

}  // namespace schedlab
