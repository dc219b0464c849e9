// schedlab's native CSV trace format. Columns and rules: docs/traces.md#native.
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "../readers.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/mig.hpp"
#include "schedlab/names.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

enum Column : std::size_t {
  kId,
  kSubmit,
  kGpus,
  kDuration,
  kWalltime,
  kPriority,
  kUser,
  kTenant,
  kGpuType,
  kPreemptible,
  kCheckpointInterval,
  kRestartOverhead,
  kStatus,
  kComm,
  kSpeeds,
  kGpuMilli,
  kCpuMilli,
  kMemoryMib,
  kMigProfile,
  kColumnCount
};

constexpr const char* kColumnNames[kColumnCount] = {"id",
                                                    "submit_time",
                                                    "gpus",
                                                    "duration",
                                                    "walltime",
                                                    "priority",
                                                    "user",
                                                    "tenant",
                                                    "gpu_type",
                                                    "preemptible",
                                                    "checkpoint_interval",
                                                    "restart_overhead",
                                                    "status",
                                                    "comm",
                                                    "speeds",
                                                    "gpu_milli",
                                                    "cpu_milli",
                                                    "memory_mib",
                                                    "mig_profile"};
constexpr std::size_t kRequiredColumns = 4;  // the first four

class NativeReader {
 public:
  NativeReader(const std::string& path, std::string_view text)
      : path_(path), text_(text), csv_(text, path) {}

  Trace read() {
    Trace trace;
    trace.path = path_;
    trace.format = "native";
    std::vector<std::string_view> fields;
    if (!csv_.next_row(fields)) throw TraceError(path_, 1, "empty file: expected a header row");
    map_header(fields);
    trace.jobs.reserve(static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n')));
    while (csv_.next_row(fields)) {
      const std::size_t line = csv_.line();
      if (fields.size() != header_size_) {
        if (fields.size() == 1 && trim(fields[0]).empty()) continue;
        throw TraceError(path_, line,
                         fmt::format("expected {} fields as in the header, got {}", header_size_,
                                     fields.size()));
      }
      JobSpec job;
      job.line = static_cast<std::uint32_t>(line);
      job.id = std::string(trim(field(fields, kId)));
      if (job.id.empty()) throw bad(line, kId, job.id, "a non-empty string");
      job.submit_ms = seconds(fields, kSubmit, line, /*allow_zero=*/true);
      job.gpus = static_cast<std::int32_t>(
          integer(fields, kGpus, line, 1, kMaxTraceGpus, "an integer in 1..1000000000"));
      job.duration_ms = seconds(fields, kDuration, line, /*allow_zero=*/false);
      if (has(kWalltime) && !trim(field(fields, kWalltime)).empty())
        job.walltime_ms = seconds(fields, kWalltime, line, /*allow_zero=*/false);
      if (has(kPriority) && !trim(field(fields, kPriority)).empty())
        job.priority = integer(fields, kPriority, line, kMinTracePriority, kMaxTracePriority,
                               "an integer in -4611686018427387904..4611686018427387903");
      if (has(kUser)) job.user = trace.strings.intern(trim(field(fields, kUser)));
      if (has(kTenant)) job.tenant = trace.strings.intern(trim(field(fields, kTenant)));
      if (has(kGpuType)) gpu_types(fields, line, trace, job);
      if (has(kStatus)) job.status = trace.strings.intern(trim(field(fields, kStatus)));
      if (has(kPreemptible)) job.preemptible = boolean(fields, kPreemptible, line, true);
      if (has(kCheckpointInterval) && !trim(field(fields, kCheckpointInterval)).empty())
        job.checkpoint_interval_ms =
            seconds(fields, kCheckpointInterval, line, /*allow_zero=*/true);
      if (has(kRestartOverhead) && !trim(field(fields, kRestartOverhead)).empty())
        job.restart_overhead_ms = seconds(fields, kRestartOverhead, line, /*allow_zero=*/true);
      if (has(kComm)) job.comm = comm_sensitivity(fields, line);
      if (has(kSpeeds)) job.speed_profile = speed_profile(fields, line, trace);
      read_sharing_columns(fields, line, trace, job);
      trace.jobs.push_back(std::move(job));
    }
    if (trace.jobs.empty())
      throw TraceError(path_, 2, "no jobs: the file has a header but no rows");
    // Duplicate ids, reported at the second occurrence.
    trace_kit::check_unique_ids(trace, path_, "id");
    return trace;
  }

 private:
  void map_header(const std::vector<std::string_view>& fields) {
    const CsvHeader header(fields, path_, 1);
    header_size_ = fields.size();
    std::vector<std::string> unknown;
    for (std::size_t i = 0; i < header.names().size(); ++i) {
      const auto& name = header.names()[i];
      bool known = false;
      for (std::size_t c = 0; c < kColumnCount; ++c) {
        if (name == kColumnNames[c]) {
          if (index_[c] != kMissing)
            throw TraceError(path_, 1,
                             fmt::format("column '{}' appears twice in the header", name));
          index_[c] = i;
          known = true;
        }
      }
      if (!known) unknown.push_back(name);
    }
    for (std::size_t c = 0; c < kRequiredColumns; ++c) {
      if (index_[c] == kMissing)
        throw TraceError(
            path_, 1,
            fmt::format("missing required column '{}'{} (required: id, "
                        "submit_time, gpus, duration)",
                        kColumnNames[c], stand_in_hint(static_cast<Column>(c), unknown)));
    }
    if (!unknown.empty()) {
      // One short line however wide the header: the first names, shortened, and the count.
      constexpr std::size_t kListed = 10;
      constexpr std::size_t kNameChars = 40;
      std::string list;
      for (std::size_t i = 0; i < std::min(kListed, unknown.size()); ++i) {
        const std::string& u = unknown[i];
        list += (list.empty() ? "'" : ", '") +
                (u.size() > kNameChars ? u.substr(0, kNameChars) + "..." : u) + "'";
      }
      if (unknown.size() > kListed) list += fmt::format(", ... ({} in all)", unknown.size());
      spdlog::warn("{}:1: ignoring unknown columns {}", path_, list);
    }
  }

  // "; the header has 'num_gpus': rename it 'gpus'" when an unknown column is another
  // trace's name for the missing required column `c`, or a misspelling of it; else "".
  static std::string stand_in_hint(Column c, const std::vector<std::string>& unknown) {
    static const std::map<Column, std::vector<std::string>> other_names = {
        {kId, {"job_id", "jobid"}},
        {kSubmit, {"submit", "submit_s", "submitted", "submit_time_s", "arrival", "arrival_time"}},
        {kGpus,
         {"num_gpus", "num_gpu", "n_gpus", "ngpus", "gpu_num", "gpu_count", "gpus_requested"}},
        {kDuration, {"runtime", "run_time", "duration_s"}}};
    const std::string wanted = kColumnNames[c];
    for (const std::string& name : unknown) {
      const auto& others = other_names.at(c);
      const bool other_name = std::any_of(others.begin(), others.end(),
                                          [&](const std::string& o) { return same_name(o, name); });
      if (other_name || closest_name(name, {wanted}))
        return fmt::format("; the header has '{}': rename it '{}'", printable_text(name), wanted);
    }
    return "";
  }

  bool has(Column c) const { return index_[c] != kMissing; }
  std::string_view field(const std::vector<std::string_view>& fields, Column c) const {
    return fields[index_[c]];
  }

  TraceError bad(std::size_t line, Column c, std::string_view value, const char* expected) const {
    return TraceError(
        path_, line,
        fmt::format("column '{}': expected {}, got '{}'", kColumnNames[c], expected, value));
  }

  TimeMs seconds(const std::vector<std::string_view>& fields, Column c, std::size_t line,
                 bool allow_zero) const {
    const std::string_view text = field(fields, c);
    const auto ms = parse_seconds_ms(text);
    const char* expected = allow_zero ? "seconds >= 0" : "seconds > 0";
    if (!ms && seconds_too_large(text))
      throw bad(line, c, text,
                fmt::format("seconds of at most {} (too large)", kMaxTimeText).c_str());
    if (!ms || *ms < 0 || (!allow_zero && *ms == 0)) throw bad(line, c, text, expected);
    return *ms;
  }

  std::int64_t integer(const std::vector<std::string_view>& fields, Column c, std::size_t line,
                       std::int64_t lo, std::int64_t hi, const char* expected) const {
    const std::string_view text = field(fields, c);
    const auto value = parse_int(text);
    if (!value || *value < lo || *value > hi) throw bad(line, c, text, expected);
    return *value;
  }

  // Column `comm`: none | low | medium | high; empty = medium (docs/cluster.md).
  CommSensitivity comm_sensitivity(const std::vector<std::string_view>& fields,
                                   std::size_t line) const {
    const std::string_view text = trim(field(fields, kComm));
    if (text.empty() || text == "medium") return CommSensitivity::kMedium;
    if (text == "none") return CommSensitivity::kNone;
    if (text == "low") return CommSensitivity::kLow;
    if (text == "high") return CommSensitivity::kHigh;
    throw bad(line, kComm, text, "none, low, medium or high");
  }

  // Column `speeds`: "TYPE=SPEED;TYPE=SPEED", SPEED > 0; empty = none (docs/cluster.md).
  std::uint32_t speed_profile(const std::vector<std::string_view>& fields, std::size_t line,
                              Trace& trace) {
    const std::string_view text = trim(field(fields, kSpeeds));
    if (text.empty()) return 0;
    if (const auto known = profile_ids_.find(text); known != profile_ids_.end())
      return known->second;
    std::vector<std::pair<StringId, double>> profile;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t semi = text.find(';', start);
      const std::string_view item = trim(text.substr(
          start, semi == std::string_view::npos ? std::string_view::npos : semi - start));
      start = semi == std::string_view::npos ? text.size() + 1 : semi + 1;
      const std::size_t eq = item.find('=');
      const auto speed =
          eq == std::string_view::npos ? std::nullopt : parse_double(item.substr(eq + 1));
      if (!speed || !(*speed >= 1e-3 && *speed <= 1e3) || trim(item.substr(0, eq)).empty())
        throw bad(line, kSpeeds, text,
                  "TYPE=SPEED items separated by ';' with SPEED in 0.001..1000");
      profile.emplace_back(trace.strings.intern(trim(item.substr(0, eq))), *speed);
    }
    trace.speed_profiles.push_back(std::move(profile));
    const auto id = static_cast<std::uint32_t>(trace.speed_profiles.size() - 1);
    profile_ids_.emplace(std::string(text), id);
    return id;
  }

  // Columns gpu_milli (1..1000, only with gpus = 1; 1000 = a whole GPU), cpu_milli and
  // memory_mib (>= 0); empty = none (docs/gpu-sharing.md).
  void read_sharing_columns(const std::vector<std::string_view>& fields, std::size_t line,
                            Trace& trace, JobSpec& job) const {
    if (has(kGpuMilli) && !trim(field(fields, kGpuMilli)).empty()) {
      const auto milli = integer(fields, kGpuMilli, line, 1, 1000, "an integer in 1..1000");
      if (milli < 1000 && job.gpus != 1)
        throw bad(line, kGpuMilli, trim(field(fields, kGpuMilli)),
                  "1000 for a job of more than one GPU (a fraction needs gpus = 1)");
      job.gpu_milli = milli == 1000 ? 0 : static_cast<std::int32_t>(milli);
    }
    if (has(kCpuMilli) && !trim(field(fields, kCpuMilli)).empty())
      job.cpu_milli =
          integer(fields, kCpuMilli, line, 0, kMaxTraceCpuMilli, "an integer in 0..1000000000");
    if (has(kMemoryMib) && !trim(field(fields, kMemoryMib)).empty())
      job.memory_mib =
          integer(fields, kMemoryMib, line, 0, kMaxTraceMemoryMib, "an integer in 0..1073741824");
    if (has(kMigProfile) && !trim(field(fields, kMigProfile)).empty()) {
      const std::string_view profile = trim(field(fields, kMigProfile));
      static const std::string expected =
          fmt::format("a MIG profile of {}, e.g. 3g.40gb", mig_geometry_names());
      if (!is_mig_profile_name(profile)) throw bad(line, kMigProfile, profile, expected.c_str());
      if (job.gpus != 1 || job.gpu_milli != 0)
        throw bad(line, kMigProfile, profile,
                  "no profile for a job of more than one GPU or with gpu_milli below 1000");
      job.mig_profile = trace.strings.intern(profile);
    }
  }

  // Column gpu_type: one type (a constraint), or several accepted ones "A|B" (a set).
  void gpu_types(const std::vector<std::string_view>& fields, std::size_t line, Trace& trace,
                 JobSpec& job) {
    const std::string_view text = trim(field(fields, kGpuType));
    if (!type_sets_.assign(text, trace, job))
      throw bad(line, kGpuType, text, "a GPU type, or several separated by '|'");
  }

  bool boolean(const std::vector<std::string_view>& fields, Column c, std::size_t line,
               bool fallback) const {
    const std::string_view text = trim(field(fields, c));
    if (text.empty()) return fallback;
    if (text == "1" || text == "true") return true;
    if (text == "0" || text == "false") return false;
    throw bad(line, c, text, "0 or 1");
  }

  static constexpr std::size_t kMissing = static_cast<std::size_t>(-1);
  std::string path_;
  std::string_view text_;
  CsvReader csv_;
  std::size_t header_size_ = 0;
  std::map<std::string, std::uint32_t, std::less<>> profile_ids_;  // `speeds` text -> profile
  trace_kit::GpuTypeSets type_sets_;
  std::size_t index_[kColumnCount] = {kMissing, kMissing, kMissing, kMissing, kMissing,
                                      kMissing, kMissing, kMissing, kMissing, kMissing,
                                      kMissing, kMissing, kMissing, kMissing, kMissing,
                                      kMissing, kMissing, kMissing, kMissing};
};

}  // namespace

Trace read_native_trace(const std::string& path, std::string_view text) {
  return NativeReader(path, text).read();
}

namespace {

bool looks_like_native(std::string_view, std::string_view text) {
  const auto end = text.find('\n');
  const std::string_view header = text.substr(0, end);
  return header.find("submit_time") != std::string_view::npos &&
         header.find("duration") != std::string_view::npos;
}

ReaderDef native_reader() {
  return ReaderDef{"native",
                   "schedlab CSV: id, submit_time, gpus, duration [, walltime, priority, ...]",
                   looks_like_native,
                   [](const std::string& path, std::string_view text) {
                     return RawTrace{read_native_trace(path, text), false};
                   },
                   nullptr};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, native_reader())

}  // namespace schedlab
