#include "schedlab/trace_writer.hpp"

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/output.hpp"

namespace schedlab {

namespace {

// Exact decimal seconds of non-negative milliseconds.
void append_seconds(fmt::memory_buffer& out, TimeMs ms) {
  fmt::format_to(std::back_inserter(out), "{}.{:03}", ms / 1000, ms % 1000);
}

}  // namespace

std::string format_native_trace(const Trace& trace) {
  bool walltime = false, priority = false, user = false, tenant = false, gpu_type = false;
  bool preemptible = false, checkpoint = false, restart = false, status = false, comm = false;
  bool speeds = false, gpu_milli = false, cpu_milli = false, memory_mib = false;
  bool mig_profile = false;
  for (const auto& job : trace.jobs) {
    walltime |= job.walltime_ms != kUnsetMs;
    priority |= job.priority != 0;
    user |= job.user != 0;
    tenant |= job.tenant != 0;
    gpu_type |= job.gpu_type != 0 || job.gpu_type_set != 0;
    preemptible |= !job.preemptible;
    checkpoint |= job.checkpoint_interval_ms != kUnsetMs;
    restart |= job.restart_overhead_ms != kUnsetMs;
    status |= job.status != 0;
    comm |= job.comm != CommSensitivity::kMedium;
    speeds |= job.speed_profile != 0;
    gpu_milli |= job.gpu_milli != 0;
    cpu_milli |= job.cpu_milli != 0;
    memory_mib |= job.memory_mib != 0;
    mig_profile |= job.mig_profile != 0;
  }
  fmt::memory_buffer out;
  out.reserve(trace.jobs.size() * 48 + 128);
  fmt::format_to(std::back_inserter(out), "id,submit_time,gpus,duration{}{}{}{}{}{}{}{}{}{}{}\n",
                 walltime ? ",walltime" : "", priority ? ",priority" : "", user ? ",user" : "",
                 tenant ? ",tenant" : "", gpu_type ? ",gpu_type" : "",
                 preemptible ? ",preemptible" : "", checkpoint ? ",checkpoint_interval" : "",
                 restart ? ",restart_overhead" : "", status ? ",status" : "", comm ? ",comm" : "",
                 speeds ? ",speeds" : "");
  // The sharing columns follow the header line's others (written only when a job uses them).
  if (gpu_milli || cpu_milli || memory_mib || mig_profile) {
    out.resize(out.size() - 1);  // the header's newline
    fmt::format_to(std::back_inserter(out), "{}{}{}{}\n", gpu_milli ? ",gpu_milli" : "",
                   cpu_milli ? ",cpu_milli" : "", memory_mib ? ",memory_mib" : "",
                   mig_profile ? ",mig_profile" : "");
  }
  auto text = [&](StringId id) {
    out.push_back(',');
    const std::string quoted = csv_field(trace.strings.str(id));
    out.append(quoted.data(), quoted.data() + quoted.size());
  };
  auto optional_seconds = [&](TimeMs ms) {
    out.push_back(',');
    if (ms != kUnsetMs) append_seconds(out, ms);
  };
  for (const auto& job : trace.jobs) {
    const std::string id = csv_field(job.id);
    out.append(id.data(), id.data() + id.size());
    out.push_back(',');
    append_seconds(out, job.submit_ms);
    fmt::format_to(std::back_inserter(out), ",{},", job.gpus);
    append_seconds(out, job.duration_ms);
    if (walltime) optional_seconds(job.walltime_ms);
    if (priority) fmt::format_to(std::back_inserter(out), ",{}", job.priority);
    if (user) text(job.user);
    if (tenant) text(job.tenant);
    if (gpu_type && job.gpu_type_set != 0) {  // accepted types "A|B"
      std::string types;
      for (const StringId type : trace.gpu_type_sets[job.gpu_type_set])
        types += (types.empty() ? "" : "|") + trace.strings.str(type);
      const std::string field = csv_field(types);
      out.push_back(',');
      out.append(field.data(), field.data() + field.size());
    } else if (gpu_type) {
      text(job.gpu_type);
    }
    if (preemptible) fmt::format_to(std::back_inserter(out), ",{}", job.preemptible ? 1 : 0);
    if (checkpoint) optional_seconds(job.checkpoint_interval_ms);
    if (restart) optional_seconds(job.restart_overhead_ms);
    if (status) text(job.status);
    if (comm) fmt::format_to(std::back_inserter(out), ",{}", comm_sensitivity_name(job.comm));
    if (speeds) {
      // "TYPE=SPEED;..." with speeds in their shortest exact form, as the reader parses them.
      std::string profile;
      for (const auto& [type, speed] : trace.speed_profiles[job.speed_profile])
        profile +=
            fmt::format("{}{}={}", profile.empty() ? "" : ";", trace.strings.str(type), speed);
      const std::string field = csv_field(profile);
      out.push_back(',');
      out.append(field.data(), field.data() + field.size());
    }
    if (gpu_milli) {  // empty = whole GPUs
      out.push_back(',');
      if (job.gpu_milli != 0) fmt::format_to(std::back_inserter(out), "{}", job.gpu_milli);
    }
    if (cpu_milli) fmt::format_to(std::back_inserter(out), ",{}", job.cpu_milli);
    if (memory_mib) fmt::format_to(std::back_inserter(out), ",{}", job.memory_mib);
    if (mig_profile) text(job.mig_profile);
    out.push_back('\n');
  }
  return fmt::to_string(out);
}

namespace {

// The non-negative integer `text` spells in canonical decimal ("7", not "007" or "+7"), so that
// distinct strings never become the same SWF number.
std::optional<std::int64_t> canonical_integer(const std::string& text) {
  const auto v = parse_int(text);
  if (!v || *v < 0 || std::to_string(*v) != text) return std::nullopt;
  return v;
}

// Text for a one-line header note: control characters and backslashes escaped (\n, \x01).
std::string note_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out;
}

// SWF status code of a trace status (1, completed, when the trace gives none); -2 when it has
// no code. Codes 2-4 mark partial-execution
// records of a checkpointed job, which readers (this one included) skip: a whole job never
// gets them.
int swf_status(const std::string& status) {
  if (status.empty()) return 1;  // the simulator replays such a job as completed
  if (const auto code = parse_int(status); code && *code >= -1 && *code <= 5)
    return *code >= 2 && *code <= 4 ? -2 : static_cast<int>(*code);
  static const char* const kCompleted[] = {"Pass", "COMPLETED", "Succeeded", "Terminated",
                                           "completed"};
  static const char* const kFailed[] = {"Failed", "FAILED", "NODE_FAIL", "TIMEOUT", "failed"};
  static const char* const kCancelled[] = {"Killed", "CANCELLED", "cancelled"};
  for (const char* s : kCompleted)
    if (status == s) return 1;
  for (const char* s : kFailed)
    if (status == s) return 0;
  for (const char* s : kCancelled)
    if (status == s) return 5;
  return -2;  // no SWF code
}

// Strings to SWF numbers: all non-negative integers are kept, otherwise numbered 1..N in
// first-seen order. Index = StringId; -1 for the empty string.
struct NumberMap {
  std::vector<std::int64_t> number;
  std::vector<StringId> mapped_order;  // ids numbered 1..N, when mapped
  bool mapped = false;
};

NumberMap number_strings(const Trace& trace, StringId JobSpec::*field) {
  NumberMap map;
  map.number.assign(trace.strings.size(), -1);
  bool all_integers = true;
  for (const auto& job : trace.jobs) {
    const StringId id = job.*field;
    if (id == 0) continue;
    if (!canonical_integer(trace.strings.str(id))) all_integers = false;
  }
  std::int64_t next = 1;
  for (const auto& job : trace.jobs) {
    const StringId id = job.*field;
    if (id == 0 || map.number[id] != -1) continue;
    if (all_integers) {
      map.number[id] = *canonical_integer(trace.strings.str(id));
    } else {
      map.number[id] = next++;
      map.mapped_order.push_back(id);
    }
  }
  map.mapped = !all_integers;
  return map;
}

}  // namespace

std::string format_swf_trace(const Trace& trace, SwfWriteReport* report) {
  SwfWriteReport r;
  // SWF job numbers are a counter from 1 in submit order; ids that are not already that
  // counter are replaced by it.
  for (std::size_t i = 0; i < trace.jobs.size() && !r.jobs_renumbered; ++i)
    r.jobs_renumbered = trace.jobs[i].id != std::to_string(i + 1);
  const NumberMap users = number_strings(trace, &JobSpec::user);
  const NumberMap groups = number_strings(trace, &JobSpec::tenant);
  r.users_mapped = users.mapped_order.size();
  r.groups_mapped = groups.mapped_order.size();
  fmt::memory_buffer out;
  out.reserve(trace.jobs.size() * 80 + 512);
  auto put = [&out](std::string_view s) { out.append(s.data(), s.data() + s.size()); };
  put("; Version: 2.2\n");
  fmt::format_to(std::back_inserter(out), "; Note: converted by schedlab from '{}' ({} format)\n",
                 note_text(trace.path), trace.format);
  put("; Note: processors are GPUs; times are whole seconds from the trace's time 0\n");
  if (r.jobs_renumbered)
    put("; Note: job numbers count 1..N in trace order (the original ids are not that counter)\n");
  for (StringId id : users.mapped_order)
    fmt::format_to(std::back_inserter(out), "; Note: user {} = {}\n", users.number[id],
                   note_text(trace.strings.str(id)));
  for (StringId id : groups.mapped_order)
    fmt::format_to(std::back_inserter(out), "; Note: group {} = {}\n", groups.number[id],
                   note_text(trace.strings.str(id)));
  fmt::format_to(std::back_inserter(out), "; MaxJobs: {}\n; MaxRecords: {}\n;\n", trace.jobs.size(),
                 trace.jobs.size());
  auto whole_seconds = [&r](TimeMs ms) {
    if (ms % 1000 != 0) ++r.times_rounded;
    return (ms + 500) / 1000;
  };
  std::uint64_t job_number = 0;
  for (const auto& job : trace.jobs) {
    ++job_number;
    const std::int64_t submit_s = whole_seconds(job.submit_ms);
    std::int64_t run_s = whole_seconds(job.duration_ms);
    if (run_s == 0) {
      run_s = 1;
      ++r.runs_raised_to_1s;
    }
    const std::int64_t requested_s =
        job.walltime_ms == kUnsetMs ? -1
                                    : std::max<std::int64_t>(1, whole_seconds(job.walltime_ms));
    int status = swf_status(trace.strings.str(job.status));
    if (status == -2) {
      ++r.statuses_unmapped;
      status = -1;
    }
    if (job.priority != 0 || job.gpu_type != 0 || !job.preemptible ||
        job.checkpoint_interval_ms != kUnsetMs || job.restart_overhead_ms != kUnsetMs ||
        job.comm != CommSensitivity::kMedium || job.speed_profile != 0)
      ++r.fields_dropped;
    fmt::format_to(std::back_inserter(out),
                   "{} {} -1 {} {} -1 -1 {} {} -1 {} {} {} -1 -1 -1 -1 -1\n", job_number, submit_s,
                   run_s, job.gpus, job.gpus, requested_s, status, users.number[job.user],
                   groups.number[job.tenant]);
  }
  if (report != nullptr) *report = r;
  return fmt::to_string(out);
}

namespace {

// `content` as a gzip file (level 6, no name, mtime 0), as gzopen(path, "wb6") writes it.
std::string gzip_bytes(const std::string& path, const std::string& content) {
  z_stream stream{};
  if (deflateInit2(&stream, 6, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw OutputError(fmt::format("{}: cannot start gzip compression", path));
  std::string out;
  char buffer[1 << 16];
  std::size_t done = 0;
  int flush = Z_NO_FLUSH;
  do {
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(content.size() - done, 1u << 30));
    // zlib takes non-const input pointers but does not write through them.
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(content.data() + done));
    stream.avail_in = chunk;
    done += chunk;
    flush = done == content.size() ? Z_FINISH : Z_NO_FLUSH;
    do {
      stream.next_out = reinterpret_cast<Bytef*>(buffer);
      stream.avail_out = sizeof buffer;
      deflate(&stream, flush);
      out.append(buffer, sizeof buffer - stream.avail_out);
    } while (stream.avail_out == 0);
  } while (flush != Z_FINISH);
  deflateEnd(&stream);
  return out;
}

}  // namespace

void write_trace_file(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !fs::is_directory(dir, ec))
    throw ConfigError(fmt::format("{}: the directory {} does not exist", path, dir.string()));
  if (path.ends_with(".gz")) {
    write_file_atomically(path, gzip_bytes(path, content));
  } else {
    write_file_atomically(path, content);
  }
}

}  // namespace schedlab
