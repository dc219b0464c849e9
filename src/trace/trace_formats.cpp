// Trace formats (Registry<ReaderDef>, filled by src/trace/formats/), format detection, directories
// of trace files, and the steps every reader's output goes through (unique ids, non-empty, time
// origin).
#include <algorithm>
#include <filesystem>
#include <unordered_set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "readers.hpp"
#include "schedlab/error.hpp"
#include "schedlab/names.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {

namespace {

const std::vector<ReaderDef>& reader_defs() {
  return Registry<ReaderDef>::instance().entries();
}

// Checks ids and emptiness, and moves absolute times to an origin at the first submission.
Trace finish(RawTrace raw, const ReaderDef& def, const std::string& path) {
  if (def.id_column != nullptr) trace_kit::check_unique_ids(raw.trace, path, def.id_column);
  trace_kit::require_jobs(raw.trace, path);
  if (raw.absolute_times) {
    const TimeMs origin = trace_kit::rebase_to_first_submit(raw.trace);
    spdlog::info("{}: time 0 is {} (the earliest submission, as written in the trace)", path,
                 trace_kit::format_civil_time(origin));
  }
  return std::move(raw.trace);
}

const ReaderDef& find_def(const std::string& name) {
  for (const auto& def : reader_defs())
    if (def.name == name) return def;
  std::string known = "auto";
  for (const auto& def : reader_defs()) known += ", " + def.name;
  throw ConfigError(fmt::format("--format: unknown trace format '{}'{} (known: {})", name,
                                did_you_mean(name, Registry<ReaderDef>::instance().name_list()),
                                known));
}

// Specific formats first (by name); native is the fallback.
const ReaderDef& detect_def(const std::string& path, std::string_view bytes) {
  const ReaderDef* native = nullptr;
  for (const auto& def : reader_defs()) {
    if (def.name == "native") {
      native = &def;
      continue;
    }
    if (def.detect(path, bytes)) return def;
  }
  SCHEDLAB_ASSERT(native != nullptr, "the native format is registered");
  return *native;
}

bool is_trace_file_name(const std::string& name) {
  if (name.empty() || name.front() == '.') return false;
  for (const char* ext : {".csv", ".json", ".jsonl", ".swf"}) {
    if (name.ends_with(ext) || name.ends_with(std::string(ext) + ".gz")) return true;
  }
  return false;
}

// Every trace file of a directory (by name order) read with one format and merged.
Trace read_directory(const std::string& dir, const TraceReadOptions& options) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_trace_file_name(it->path().filename().string())) files.push_back(it->path().string());
  if (ec) throw TraceError(dir, fmt::format("cannot list directory: {}", ec.message()));
  std::sort(files.begin(), files.end());
  // An entry named like a trace file is read, or refused (the first in name order): never
  // skipped in silence.
  for (const auto& entry : files) {
    std::error_code type_ec;
    const fs::file_status status = fs::status(entry, type_ec);
    if (type_ec || !fs::exists(status)) {
      const bool link = fs::is_symlink(fs::symlink_status(entry, type_ec));
      throw TraceError(entry, link ? "a trace-file name in the trace directory is a dangling or "
                                     "looping symbolic link: remove it or fix its target"
                                   : "a trace-file name in the trace directory cannot be read");
    }
    if (fs::is_directory(status))
      throw TraceError(entry,
                       "a trace-file name in the trace directory is a directory, not a file: "
                       "rename or remove it");
    if (!fs::is_regular_file(status))
      throw TraceError(entry,
                       "a trace-file name in the trace directory is not a regular file (a named "
                       "pipe, socket or device): rename or remove it");
  }
  if (files.empty())
    throw TraceError(
        dir, "no trace files (*.csv, *.json, *.jsonl, *.swf, optionally .gz) in this directory");
  const ReaderDef* def = options.format == "auto" ? nullptr : &find_def(options.format);
  Trace merged;
  merged.path = dir;
  trace_kit::SkipCounter skipped;
  bool absolute = false;
  std::vector<std::pair<std::string, std::size_t>> file_jobs;  // stem, job count
  for (const auto& file : files) {
    const std::string bytes = read_file_bytes(file);
    const ReaderDef& chosen = def != nullptr ? *def : detect_def(file, bytes);
    if (def == nullptr) {
      def = &chosen;
    } else if (&chosen != def) {
      throw TraceError(file,
                       fmt::format("looks like format '{}', but {} was read as '{}' (use --format)",
                                   chosen.name, files.front(), def->name));
    }
    RawTrace raw = def->read_raw(file, bytes);
    if (def->id_column != nullptr) trace_kit::check_unique_ids(raw.trace, file, def->id_column);
    absolute = raw.absolute_times;
    for (const auto& [reason, n] : raw.trace.skipped) skipped.add(reason, n);
    const Trace& part = raw.trace;
    merged.jobs.reserve(merged.jobs.size() + part.jobs.size());
    for (const JobSpec& job : part.jobs) {
      JobSpec copy = job;
      copy.user = merged.strings.intern(part.strings.str(job.user));
      copy.tenant = merged.strings.intern(part.strings.str(job.tenant));
      copy.gpu_type = merged.strings.intern(part.strings.str(job.gpu_type));
      copy.status = merged.strings.intern(part.strings.str(job.status));
      merged.jobs.push_back(std::move(copy));
    }
    file_jobs.emplace_back(trace_kit::file_stem(file), part.jobs.size());
  }
  merged.format = def->name;
  skipped.move_into(merged);
  // Ids must be unique across files; if any repeats, every id becomes "<file stem>/<id>" (or
  // "<file name>/<id>" when two files share a stem).
  std::unordered_set<std::string_view> seen;
  seen.reserve(merged.jobs.size());
  bool collision = false;
  for (const auto& job : merged.jobs) {
    if (!seen.insert(job.id).second) {
      collision = true;
      break;
    }
  }
  seen.clear();
  if (collision) {
    // Prefixes must differ between files: "a.csv" and "a.csv.gz" share the stem "a", so when
    // stems repeat every prefix is the whole file name.
    std::unordered_set<std::string> stems;
    bool stems_repeat = false;
    for (const auto& entry : file_jobs) stems_repeat |= !stems.insert(entry.first).second;
    if (stems_repeat)
      for (std::size_t f = 0; f < files.size(); ++f)
        file_jobs[f].first = std::filesystem::path(files[f]).filename().string();
    std::size_t j = 0;
    for (const auto& [stem, count] : file_jobs)
      for (std::size_t k = 0; k < count; ++k, ++j)
        merged.jobs[j].id = stem + "/" + merged.jobs[j].id;
    spdlog::info("{}: job ids repeat across files; ids are prefixed with their file name", dir);
  }
  RawTrace raw{std::move(merged), absolute};
  static const ReaderDef kMerged{"", "", nullptr, nullptr, nullptr};
  return finish(std::move(raw), kMerged, dir);
}

}  // namespace

std::vector<TraceFormat> trace_formats() {
  std::vector<TraceFormat> list;
  for (const ReaderDef& def : reader_defs()) {
    list.push_back(TraceFormat{def.name, def.summary, def.detect,
                               [def](const std::string& path, std::string_view text) {
                                 return finish(def.read_raw(path, text), def, path);
                               }});
  }
  return list;
}

Trace read_trace(const std::string& path, const TraceReadOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return read_directory(path, options);
  if (options.format != "auto") {
    const ReaderDef& def = find_def(options.format);
    const std::string bytes = read_file_bytes(path);
    return finish(def.read_raw(path, bytes), def, path);
  }
  const std::string bytes = read_file_bytes(path);
  const ReaderDef& def = detect_def(path, bytes);
  if (def.name != "native") spdlog::info("{}: detected format '{}'", path, def.name);
  return finish(def.read_raw(path, bytes), def, path);
}

}  // namespace schedlab
