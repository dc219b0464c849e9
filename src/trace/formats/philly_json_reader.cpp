// Microsoft Philly 2017 raw cluster_job_log (msr-fiddle/philly-traces, Jeon et al., ATC'19): a
// JSON array (or one object per line) of jobs {status, vc, jobid, attempts[{start_time,
// end_time, detail[{ip, gpus[]}]}], submitted_time, user}; times are local wall-clock
// "YYYY-MM-DD HH:MM:SS" and a missing time is null or "None".
// Derivation (as in the trace's analysis notebook): GPUs = GPUs of the first attempt; run time
// = last attempt's end - first attempt's start. Keys, time zone and skips:
// docs/traces.md#philly-json.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../readers.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

using nlohmann::json;

// Splits the text into its top-level JSON values: the elements of one top-level array, or a
// sequence of values (JSON Lines). Each value is returned with the line where it starts.
class JsonElements {
 public:
  JsonElements(const std::string& path, std::string_view text) : path_(path), text_(text) {
    if (text_.size() >= 3 && text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == '[') {
      array_ = true;
      ++pos_;
    }
  }

  // Next element; false at the end. Throws TraceError on structural errors.
  bool next(std::string_view& element, std::size_t& line) {
    skip_ws();
    if (array_) {
      if (closed_) return finish();
      if (pos_ >= text_.size())
        throw TraceError(path_, line_, "unterminated JSON array (missing ']')");
      if (text_[pos_] == ']') {
        ++pos_;
        closed_ = true;
        return finish();
      }
      if (count_ > 0) {
        if (text_[pos_] != ',')
          throw TraceError(path_, line_,
                           fmt::format("expected ',' or ']' after a job, got '{}'", text_[pos_]));
        ++pos_;
        skip_ws();
        if (pos_ >= text_.size())
          throw TraceError(path_, line_, "unterminated JSON array (missing ']')");
      }
    } else if (pos_ >= text_.size()) {
      return false;
    }
    const std::size_t start = pos_;
    line = line_;
    scan_value();
    element = text_.substr(start, pos_ - start);
    ++count_;
    return true;
  }

 private:
  bool finish() {
    skip_ws();
    if (pos_ < text_.size())
      throw TraceError(path_, line_, "unexpected content after the end of the JSON array");
    return false;
  }

  void skip_ws() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n')
        ++line_;
      else if (c != ' ' && c != '\t' && c != '\r')
        break;
      ++pos_;
    }
  }

  // Advances over one value; nested brackets are counted, strings skipped with their escapes.
  void scan_value() {
    const std::size_t start_line = line_;
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        while (pos_ < text_.size() && text_[pos_] != '"') {
          if (text_[pos_] == '\\')
            ++pos_;
          else if (text_[pos_] == '\n')
            ++line_;
          ++pos_;
        }
        if (pos_ >= text_.size()) throw TraceError(path_, start_line, "unterminated JSON string");
        ++pos_;
        if (depth == 0) return;
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return;  // the enclosing array's end
        --depth;
        if (depth == 0) {
          ++pos_;
          return;
        }
      } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
        return;  // end of a scalar
      } else if (c == '\n') {
        ++line_;
      }
      ++pos_;
    }
    if (depth > 0)
      throw TraceError(path_, start_line, "unterminated JSON value (missing '}' or ']')");
  }

  const std::string& path_;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t count_ = 0;
  bool array_ = false;
  bool closed_ = false;
};

// Line of byte `offset` inside `element`, which starts at `line`.
std::size_t line_at(std::string_view element, std::size_t line, std::size_t offset) {
  offset = std::min(offset, element.size());
  return line + static_cast<std::size_t>(std::count(
                    element.begin(), element.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string parse_error_text(const json::parse_error& e) {
  std::string what = e.what();
  const auto column = what.find("column ");
  const auto colon = what.find(": ", column == std::string::npos ? 0 : column);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// A value for messages: strings as 'text', scalars as compact JSON, arrays and objects by kind
// and size (dumping them would recurse as deep as the input nests), cut at 60 characters.
std::string describe(const json& value) {
  std::string text;
  if (value.is_string()) {
    text = "'" + value.get<std::string>() + "'";
  } else if (value.is_array()) {
    text = fmt::format("an array of {} elements", value.size());
  } else if (value.is_object()) {
    text = fmt::format("an object of {} keys", value.size());
  } else {
    text = value.dump();
  }
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

class JobParser {
 public:
  JobParser(const std::string& path, std::size_t line, const json& job)
      : path_(path), line_(line), job_(job) {}

  [[noreturn]] void fail(const std::string& key, std::string_view expected, const json& got) const {
    throw TraceError(path_, line_,
                     fmt::format("key '{}': expected {}, got {}", key, expected, describe(got)));
  }
  [[noreturn]] void fail_missing(const std::string& key) const {
    throw TraceError(path_, line_, fmt::format("key '{}': missing", key));
  }

  // Without leading and trailing spaces and tabs, as every CSV reader takes its fields: ids,
  // users, tenants and statuses then read back the same from the trace's native CSV.
  std::string string(const char* key) const {
    if (!job_.contains(key)) fail_missing(key);
    const json& v = job_.at(key);
    if (!v.is_string()) fail(key, "a string", v);
    return std::string(trim(v.get_ref<const std::string&>()));
  }

  // A time or nullopt for null / "None" / "".
  static bool absent(const json& v) {
    return v.is_null() || (v.is_string() && trace_kit::is_missing(v.get_ref<const std::string&>()));
  }
  // Attempt times may be null / "None" (nullopt); submitted_time may not (`nullable` false).
  std::optional<TimeMs> time(const json& obj, const std::string& key_path, const char* key,
                             bool nullable = true) const {
    const char* expected =
        nullable ? "a time 'YYYY-MM-DD HH:MM:SS' or null" : "a time 'YYYY-MM-DD HH:MM:SS'";
    if (!obj.contains(key)) {
      if (nullable) return std::nullopt;
      fail_missing(key_path);
    }
    const json& v = obj.at(key);
    if (absent(v)) {
      if (nullable) return std::nullopt;
      fail(key_path, expected, v);
    }
    if (!v.is_string()) fail(key_path, expected, v);
    const auto ms = trace_kit::parse_civil_time_ms(v.get_ref<const std::string&>());
    if (!ms) fail(key_path, expected, v);
    return ms;
  }

 private:
  const std::string& path_;
  std::size_t line_;
  const json& job_;
};

// One job's JSON text (starting at `line` of `path`). A key repeated in one object, or nesting
// deeper than kMaxJsonDepth, is a TraceError at the line of the repeated key (parse_json_text's
// rules); other errors are json::parse's.
json parse_job(const std::string& path, std::string_view element, std::size_t line) {
  try {
    return parse_json_text<json>(element, "");
  } catch (const ConfigError& e) {
    // parse_json_text says ":LINE: what" (LINE within `element`) or ": what".
    std::string_view what = e.what();
    std::size_t element_line = 1;
    if (what.starts_with(":") && what.size() > 1 && what[1] != ' ') {
      std::size_t digits = 1;
      element_line = 0;
      while (digits < what.size() && what[digits] >= '0' && what[digits] <= '9')
        element_line = element_line * 10 + static_cast<std::size_t>(what[digits++] - '0');
      what.remove_prefix(digits);
    }
    if (what.starts_with(": ")) what.remove_prefix(2);
    throw TraceError(path, line + std::max<std::size_t>(element_line, 1) - 1, std::string(what));
  }
}

RawTrace read_philly_json(const std::string& path, std::string_view text) {
  RawTrace raw;
  raw.absolute_times = true;
  Trace& trace = raw.trace;
  trace.path = path;
  trace.format = "philly-json";
  trace_kit::SkipCounter skipped;
  JsonElements elements(path, text);
  std::string_view element;
  std::size_t line = 0;
  while (elements.next(element, line)) {
    json job;
    try {
      job = parse_job(path, element, line);
    } catch (const json::parse_error& e) {
      throw TraceError(path, line_at(element, line, e.byte == 0 ? 0 : e.byte - 1),
                       fmt::format("invalid JSON: {}", parse_error_text(e)));
    } catch (const json::exception& e) {
      throw TraceError(path, line, fmt::format("invalid JSON: {}", json_error_text(e)));
    }
    if (!job.is_object())
      throw TraceError(path, line,
                       fmt::format("expected a JSON object per job, got {}", describe(job)));
    const JobParser p(path, line, job);
    JobSpec spec;
    spec.line = static_cast<std::uint32_t>(line);
    spec.id = p.string("jobid");
    if (spec.id.empty()) p.fail("jobid", "a non-empty string", job.at("jobid"));
    const std::string status = p.string("status");
    spec.submit_ms = *p.time(job, "submitted_time", "submitted_time", /*nullable=*/false);
    const std::string vc = job.contains("vc") ? p.string("vc") : std::string();
    const std::string user = job.contains("user") ? p.string("user") : std::string();
    // Attempts: a missing key or null counts as none.
    const json empty = json::array();
    const json& attempts =
        job.contains("attempts") && !job.at("attempts").is_null() ? job.at("attempts") : empty;
    if (!attempts.is_array()) p.fail("attempts", "an array", attempts);
    std::optional<TimeMs> first_start;
    std::optional<TimeMs> last_end;
    std::int64_t gpus = 0;
    for (std::size_t a = 0; a < attempts.size(); ++a) {
      const json& attempt = attempts[a];
      const std::string at = fmt::format("attempts[{}]", a);
      if (!attempt.is_object()) p.fail(at, "an object", attempt);
      const auto start = p.time(attempt, at + ".start_time", "start_time");
      const auto end = p.time(attempt, at + ".end_time", "end_time");
      if (a == 0) {
        first_start = start;
        if (attempt.contains("detail") && !attempt.at("detail").is_null()) {
          const json& detail = attempt.at("detail");
          if (!detail.is_array()) p.fail(at + ".detail", "an array", detail);
          for (std::size_t d = 0; d < detail.size(); ++d) {
            const std::string dt = fmt::format("{}.detail[{}]", at, d);
            if (!detail[d].is_object()) p.fail(dt, "an object", detail[d]);
            if (!detail[d].contains("gpus")) continue;
            const json& list = detail[d].at("gpus");
            if (!list.is_array()) p.fail(dt + ".gpus", "an array", list);
            gpus += static_cast<std::int64_t>(list.size());
          }
        }
      }
      if (a + 1 == attempts.size()) last_end = end;
    }
    if (attempts.empty()) {
      skipped.add("never ran (no attempts)");
      continue;
    }
    if (gpus == 0) {
      skipped.add("no GPUs in the first attempt");
      continue;
    }
    if (!first_start) {
      skipped.add("no start_time in the first attempt");
      continue;
    }
    if (!last_end) {
      skipped.add("no end_time in the last attempt (running at the snapshot)");
      continue;
    }
    if (*last_end <= *first_start) {
      skipped.add("no run time (last end_time <= first start_time)");
      continue;
    }
    spec.gpus = static_cast<std::int32_t>(std::min<std::int64_t>(gpus, 1'000'000'000));
    spec.duration_ms = *last_end - *first_start;
    spec.status = trace.strings.intern(status);
    spec.tenant = trace.strings.intern(vc);
    spec.user = trace.strings.intern(user);
    trace.jobs.push_back(std::move(spec));
  }
  skipped.move_into(trace);
  return raw;
}

bool looks_like_philly_json(std::string_view, std::string_view text) {
  const std::string_view head = text.substr(0, 4096);
  std::size_t i = 0;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
    ++i;
  if (i >= head.size() || (head[i] != '[' && head[i] != '{')) return false;
  return head.find("\"jobid\"") != std::string_view::npos &&
         (head.find("\"attempts\"") != std::string_view::npos ||
          head.find("\"submitted_time\"") != std::string_view::npos);
}

ReaderDef philly_json_reader() {
  return ReaderDef{"philly-json",
                   "Microsoft Philly 2017 raw cluster_job_log JSON: jobid, vc, user, status, "
                   "submitted_time, attempts",
                   looks_like_philly_json, read_philly_json, "jobid"};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, philly_json_reader())

}  // namespace schedlab
