// Reading a trace for a command: filters, format note and skip counts on stderr.
#include <cstdio>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/trace.hpp"
#include "schedlab/trace_filter.hpp"

namespace schedlab::cli {

void add_filter_option(CLI::App& command, std::vector<std::string>& filters) {
  command.add_option("--filter", filters,
                     "keep only some jobs (repeatable): from=TIME, to=TIME (trace seconds, or "
                     "90s/30m/12h/2d), tenant=A[,B], user=A[,B], status=A[,B], limit=N");
}

Trace load_trace(const std::string& path, const std::string& format,
                 const std::vector<std::string>& filters) {
  // Filters are checked before the (possibly long) read.
  const TraceFilter filter = parse_trace_filter(filters);
  Trace trace = read_trace(path, TraceReadOptions{format});
  if (format == "auto" && trace.format != "native")
    std::fprintf(stderr, "schedlab: %s: read as '%s' (detected from its content)\n",
                 printable_text(path).c_str(), trace.format.c_str());
  apply_trace_filter(trace, filter);
  if (!trace.skipped.empty()) {
    std::uint64_t total = 0;
    std::string reasons;
    for (const auto& [reason, n] : trace.skipped) {
      total += n;
      reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", n, reason);
    }
    std::fprintf(stderr, "schedlab: %s: %zu jobs kept, %llu left out: %s\n",
                 printable_text(path).c_str(), trace.jobs.size(),
                 static_cast<unsigned long long>(total), printable_text(reasons).c_str());
  }
  return trace;
}

}  // namespace schedlab::cli
