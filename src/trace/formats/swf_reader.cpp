// Standard Workload Format (Parallel Workloads Archive, Feitelson et al., JPDC 2014): one job
// per line, 18 whitespace-separated numbers, -1 = unknown; header lines start with ';'.
// Processors map to GPUs. Fields, mapping and skips: docs/traces.md#swf.
#include <cmath>

#include <fmt/format.h>

#include "../readers.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

constexpr std::size_t kFieldCount = 18;
// SWF field names (1-based field number = index + 1).
constexpr const char* kFieldNames[kFieldCount] = {
    "job_number",       "submit_time",   "wait_time",       "run_time",       "allocated_procs",
    "average_cpu_time", "used_memory",   "requested_procs", "requested_time", "requested_memory",
    "status",           "user_id",       "group_id",        "executable",     "queue",
    "partition",        "preceding_job", "think_time"};
enum Field : std::size_t {
  kJob = 0,
  kSubmit = 1,
  kRunTime = 3,
  kAllocProcs = 4,
  kReqProcs = 7,
  kReqTime = 8,
  kStatus = 10,
  kUser = 11,
  kGroup = 12
};

// Splits a line on spaces and tabs.
void split_ws(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
}

class SwfRow {
 public:
  SwfRow(const std::string& path, const std::vector<std::string_view>& fields, std::size_t line)
      : path_(path), fields_(fields), line_(line) {}

  [[noreturn]] void fail(std::size_t f, std::string_view expected) const {
    throw TraceError(path_, line_,
                     fmt::format("column '{}' (field {}): expected {}, got '{}'", kFieldNames[f],
                                 f + 1, expected, fields_[f]));
  }
  std::int64_t integer(std::size_t f) const {
    const auto v = parse_int(fields_[f]);
    if (v) return *v;
    // Some archive logs write integers as "12.00".
    // Range first: converting a double outside int64's range is undefined behaviour.
    const auto d = parse_double(fields_[f]);
    if (!d || !(std::fabs(*d) < 9.2e18) || *d != static_cast<double>(static_cast<std::int64_t>(*d)))
      fail(f, "an integer");
    return static_cast<std::int64_t>(*d);
  }
  // -1 (unknown) or seconds >= 0, in milliseconds; -1 stays -1.
  TimeMs seconds_or_unknown(std::size_t f) const {
    const auto ms = parse_seconds_ms(fields_[f]);
    if (!ms || (*ms < 0 && *ms != -1000)) fail(f, "seconds >= 0 or -1");
    return *ms < 0 ? -1 : *ms;
  }
  void check_number(std::size_t f) const {
    if (!parse_double(fields_[f])) fail(f, "a number");
  }

 private:
  const std::string& path_;
  const std::vector<std::string_view>& fields_;
  std::size_t line_;
};

RawTrace read_swf(const std::string& path, std::string_view text) {
  RawTrace raw;
  Trace& trace = raw.trace;
  trace.path = path;
  trace.format = "swf";
  trace_kit::SkipCounter skipped;
  text = trace_kit::without_bom(text);
  trace.jobs.reserve(trace_kit::count_lines(text) + 1);
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  std::size_t line = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view content = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    const std::string_view trimmed = trim(content);
    if (trimmed.empty() || trimmed.front() == ';' || trimmed == "\r") continue;
    split_ws(content, fields);
    if (fields.size() != kFieldCount)
      throw TraceError(path, line,
                       fmt::format("expected {} whitespace-separated SWF fields, got {}",
                                   kFieldCount, fields.size()));
    const SwfRow row(path, fields, line);
    for (std::size_t f = 0; f < kFieldCount; ++f) row.check_number(f);
    JobSpec job;
    job.line = static_cast<std::uint32_t>(line);
    const std::int64_t number = row.integer(kJob);
    if (number < 0) row.fail(kJob, "an integer >= 0");
    job.id = std::to_string(number);
    const std::int64_t status = row.integer(kStatus);
    if (status < -1 || status > 5) row.fail(kStatus, "a status code -1..5");
    const TimeMs submit_ms = row.seconds_or_unknown(kSubmit);
    const TimeMs run_ms = row.seconds_or_unknown(kRunTime);
    const std::int64_t allocated = row.integer(kAllocProcs);
    const std::int64_t requested = row.integer(kReqProcs);
    const TimeMs requested_ms = row.seconds_or_unknown(kReqTime);
    if (allocated < -1 || allocated > 1'000'000'000) row.fail(kAllocProcs, "processors >= 0 or -1");
    if (requested < -1 || requested > 1'000'000'000) row.fail(kReqProcs, "processors >= 0 or -1");
    const std::int64_t user = row.integer(kUser);
    const std::int64_t group = row.integer(kGroup);
    if (status >= 2 && status <= 4) {
      skipped.add("partial-execution record (status 2, 3 or 4)");
      continue;
    }
    if (submit_ms < 0) {
      skipped.add("submit time unknown (-1)");
      continue;
    }
    if (run_ms < 0) {
      skipped.add("run time unknown (-1)");
      continue;
    }
    if (run_ms == 0) {
      skipped.add("no run time (run time 0)");
      continue;
    }
    const std::int64_t procs = allocated > 0 ? allocated : requested;
    if (procs <= 0) {
      skipped.add("no processor count (allocated and requested -1 or 0)");
      continue;
    }
    job.submit_ms = submit_ms;
    job.duration_ms = run_ms;
    job.gpus = static_cast<std::int32_t>(procs);
    if (requested_ms > 0) job.walltime_ms = requested_ms;
    if (status != -1) job.status = trace.strings.intern(std::to_string(status));
    if (user >= 0) job.user = trace.strings.intern(std::to_string(user));
    if (group >= 0) job.tenant = trace.strings.intern(std::to_string(group));
    trace.jobs.push_back(std::move(job));
  }
  skipped.move_into(trace);
  return raw;
}

// SWF if the first line that is not empty is a ';' header line (no other format starts so; a
// bad job line after it is then reported as an SWF error), or is a line of 18 numbers.
bool looks_like_swf(std::string_view /*path*/, std::string_view text) {
  text = trace_kit::without_bom(text);
  std::size_t pos = 0;
  std::vector<std::string_view> fields;
  for (int lines = 0; pos < text.size() && lines < 200; ++lines) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line == "\r") continue;
    if (line.front() == ';') return true;
    split_ws(line, fields);
    if (fields.size() != kFieldCount) return false;
    for (auto f : fields)
      if (!parse_double(f)) return false;
    return true;
  }
  return false;
}

ReaderDef swf_reader() {
  return ReaderDef{"swf",
                   "Standard Workload Format (Parallel Workloads Archive): 18 fields per line",
                   looks_like_swf, read_swf, "job_number"};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, swf_reader())

}  // namespace schedlab
