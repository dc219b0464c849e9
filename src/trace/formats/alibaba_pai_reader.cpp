// Alibaba PAI 2020 (Weng et al., NSDI'22) pai_task_table: job_name, task_name, inst_num, status,
// start_time, end_time (s, shifted by a constant), plan_cpu, plan_mem, plan_gpu (percent of one
// GPU per instance), gpu_type. The published CSVs have no header row (the header ships as
// pai_task_table.header); both forms are read. Task rows are grouped into one job per job_name.
// If pai_job_table.csv[.gz] lies in the same directory it supplies user, status and the
// submission time. Columns, derivation and skips: docs/traces.md#alibaba-pai.
#include <cmath>
#include <filesystem>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "../readers.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

enum TaskColumn : std::size_t {
  kJobName,
  kTaskName,
  kInstNum,
  kStatus,
  kStart,
  kEnd,
  kPlanCpu,
  kPlanMem,
  kPlanGpu,
  kGpuType,
  kTaskColumns
};
constexpr trace_kit::ColumnSpec kTaskSpecs[] = {
    {"job_name", true},   {"task_name", true}, {"inst_num", true},  {"status", true},
    {"start_time", true}, {"end_time", true},  {"plan_cpu", false}, {"plan_mem", false},
    {"plan_gpu", true},   {"gpu_type", false}};

enum JobColumn : std::size_t { kJJobName, kJInstId, kJUser, kJStatus, kJStart, kJEnd, kJobColumns };
constexpr trace_kit::ColumnSpec kJobSpecs[] = {{"job_name", true},   {"inst_id", false},
                                               {"user", true},       {"status", true},
                                               {"start_time", true}, {"end_time", false}};

bool header_matches(const std::vector<std::string_view>& fields,
                    std::span<const trace_kit::ColumnSpec> specs) {
  if (fields.size() != specs.size()) return false;
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (trim(fields[i]) != specs[i].name) return false;
  return true;
}

// From pai_job_table: what the task table lacks.
struct JobInfo {
  std::string user;
  std::string status;
  std::optional<TimeMs> submit_ms;
};

std::unordered_map<std::string, JobInfo> read_job_table(const std::string& path) {
  const std::string text = read_file_bytes(path);
  CsvReader csv(text, path);
  std::vector<std::string_view> fields;
  std::unordered_map<std::string, JobInfo> jobs;
  if (!csv.next_row(fields)) return jobs;
  const bool has_header = header_matches(fields, kJobSpecs);
  const trace_kit::ColumnIndex columns =
      has_header ? trace_kit::ColumnIndex(path, csv.line(), fields, kJobSpecs)
                 : trace_kit::ColumnIndex(kJobSpecs, kJobColumns);
  trace_kit::RowParser row(path, columns);
  bool pending = !has_header;
  while (pending || csv.next_row(fields)) {
    pending = false;
    row.bind(fields, csv.line());
    JobInfo info;
    info.user = std::string(row.text(kJUser));
    info.status = std::string(row.text(kJStatus));
    if (!row.missing(kJStart)) info.submit_ms = row.seconds(kJStart, /*allow_zero=*/true);
    jobs.emplace(std::string(row.text(kJJobName)), std::move(info));
  }
  return jobs;
}

std::string sibling_job_table(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(path).parent_path();
  for (const char* name : {"pai_job_table.csv", "pai_job_table.csv.gz"}) {
    std::error_code ec;
    const fs::path candidate = dir / name;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return {};
}

// One job being assembled from its task rows.
struct Assembly {
  std::size_t job = 0;  // index into trace.jobs
  std::int64_t gpus = 0;
  std::optional<TimeMs> first_start_ms;
  TimeMs last_end_ms = 0;
  bool missing_end = false;
  bool mixed_types = false;
  StringId gpu_type = 0;
  bool any_failed = false, any_running = false, any_waiting = false, mixed_status = false;
  std::string first_status;
};

RawTrace read_pai(const std::string& path, std::string_view text) {
  RawTrace raw;
  Trace& trace = raw.trace;
  trace.path = path;
  trace.format = "alibaba-pai";
  CsvReader csv(text, path);
  std::vector<std::string_view> fields;
  if (!csv.next_row(fields)) throw TraceError(path, 1, "empty file: expected task rows");
  const bool has_header =
      header_matches(fields, kTaskSpecs) ||
      trace_kit::header_has(trace_kit::header_fields(text), {"job_name", "plan_gpu"});
  const trace_kit::ColumnIndex columns =
      has_header ? trace_kit::ColumnIndex(path, csv.line(), fields, kTaskSpecs)
                 : trace_kit::ColumnIndex(kTaskSpecs, kTaskColumns);
  trace_kit::RowParser row(path, columns);
  std::vector<Assembly> parts;
  std::unordered_map<std::string, std::size_t> index_of;  // job_name -> parts index
  bool pending = !has_header;
  while (pending || csv.next_row(fields)) {
    pending = false;
    row.bind(fields, csv.line());
    const std::string_view name = row.text(kJobName);
    if (name.empty()) row.fail(kJobName, "a non-empty job name");
    const std::int64_t instances = row.integer(kInstNum, 0, 1'000'000, "an integer >= 0");
    double plan_gpu = 0;
    if (!row.missing(kPlanGpu)) {
      plan_gpu = row.number(kPlanGpu, 0.0, "a GPU percentage in [0, 6400]");
      if (plan_gpu > 6400) row.fail(kPlanGpu, "a GPU percentage in [0, 6400]");
    }
    const bool has_start = !row.missing(kStart);
    const bool has_end = !row.missing(kEnd);
    const TimeMs start_ms = has_start ? row.seconds(kStart, /*allow_zero=*/true) : 0;
    const TimeMs end_ms = has_end ? row.seconds(kEnd, /*allow_zero=*/true) : 0;
    auto [it, inserted] = index_of.try_emplace(std::string(name), parts.size());
    if (inserted) {
      JobSpec job;
      job.id = std::string(name);
      job.line = static_cast<std::uint32_t>(row.line());
      trace.jobs.push_back(std::move(job));
      Assembly part;
      part.job = trace.jobs.size() - 1;
      part.first_status = std::string(row.text(kStatus));
      parts.push_back(std::move(part));
    }
    Assembly& part = parts[it->second];
    // Each instance holds ceil(plan_gpu / 100) whole GPUs (50% of a GPU holds one GPU).
    const auto per_instance = static_cast<std::int64_t>(std::ceil(plan_gpu / 100.0 - 1e-9));
    part.gpus += instances * per_instance;
    if (has_start)
      part.first_start_ms =
          part.first_start_ms ? std::min(*part.first_start_ms, start_ms) : start_ms;
    if (has_end)
      part.last_end_ms = std::max(part.last_end_ms, end_ms);
    else if (has_start)
      part.missing_end = true;
    if (per_instance > 0 && instances > 0 && !row.missing(kGpuType)) {
      // '|' separates the accepted types of a set in the native format: no name holds one.
      if (row.text(kGpuType).find('|') != std::string_view::npos)
        row.fail(kGpuType, "a GPU type name without '|'");
      const StringId type = trace.strings.intern(row.text(kGpuType));
      if (part.gpu_type != 0 && part.gpu_type != type) part.mixed_types = true;
      part.gpu_type = type;
    }
    const std::string_view status = row.text(kStatus);
    if (status != part.first_status) part.mixed_status = true;
    part.any_failed |= status == "Failed";
    part.any_running |= status == "Running";
    part.any_waiting |= status == "Waiting";
  }
  std::unordered_map<std::string, JobInfo> job_table;
  if (const std::string sibling = sibling_job_table(path); !sibling.empty()) {
    job_table = read_job_table(sibling);
    spdlog::info("{}: joined with {} for user, status and submission time", path, sibling);
  }
  trace_kit::SkipCounter skipped;
  std::vector<JobSpec> kept;
  kept.reserve(trace.jobs.size());
  for (const Assembly& part : parts) {
    JobSpec& job = trace.jobs[part.job];
    if (part.gpus == 0) {
      skipped.add("CPU-only (plan_gpu 0)");
      continue;
    }
    if (!part.first_start_ms) {
      skipped.add("never started (no start_time)");
      continue;
    }
    if (part.missing_end) {
      skipped.add("no end_time (running at the snapshot)");
      continue;
    }
    if (part.last_end_ms <= *part.first_start_ms) {
      skipped.add("no run time (end_time <= start_time)");
      continue;
    }
    job.gpus = static_cast<std::int32_t>(std::min<std::int64_t>(part.gpus, 1'000'000'000));
    job.duration_ms = part.last_end_ms - *part.first_start_ms;
    job.submit_ms = *part.first_start_ms;
    if (!part.mixed_types) job.gpu_type = part.gpu_type;
    std::string status = part.first_status;
    if (part.mixed_status)
      status = part.any_failed    ? "Failed"
               : part.any_running ? "Running"
               : part.any_waiting ? "Waiting"
                                  : status;
    if (const auto found = job_table.find(job.id); found != job_table.end()) {
      job.user = trace.strings.intern(found->second.user);
      status = found->second.status;
      if (found->second.submit_ms && *found->second.submit_ms <= job.submit_ms)
        job.submit_ms = *found->second.submit_ms;
    }
    job.status = trace.strings.intern(status);
    kept.push_back(std::move(job));
  }
  trace.jobs = std::move(kept);
  skipped.move_into(trace);
  return raw;
}

bool looks_like_pai(std::string_view path, std::string_view text) {
  const auto header = trace_kit::header_fields(text);
  if (trace_kit::header_has(header, {"job_name", "task_name", "inst_num", "plan_gpu"})) return true;
  const std::string_view name = path.substr(
      path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1);
  return name.starts_with("pai_task_table") && header.size() == kTaskColumns;
}

ReaderDef alibaba_pai_reader() {
  return ReaderDef{"alibaba-pai",
                   "Alibaba PAI 2020 pai_task_table (header optional), joined with a sibling "
                   "pai_job_table if present",
                   looks_like_pai, read_pai, "job_name"};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, alibaba_pai_reader())

}  // namespace schedlab
