// What every trace reader shares, and the readers of cluster inventories and GPU-sharing
// inputs: column lookup by header name with exact error messages, strict field parsing, civil-time
// conversion, skip counting, and the steps that finish a trace (time origin, unique ids).
//
// Message conventions (docs/traces.md): every input error is one line "FILE:LINE: message";
// a bad field reads "column 'NAME': expected WHAT, got 'VALUE'".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/job.hpp"
#include "schedlab/types.hpp"

namespace schedlab::trace_kit {

// Tokens the published traces use for "no value": empty, NaN, nan, None, null, NULL, NA, \N.
bool is_missing(std::string_view text);

// "YYYY-MM-DD HH:MM:SS" (or 'T' between date and time), optional fraction of a second and an
// optional UTC offset ("Z", "+08:00", "+0800"). Returns milliseconds since 1970-01-01 00:00 UTC;
// a time without an offset is taken as UTC (i.e. as naive wall-clock time). nullopt if the text
// is not such a time or a field is out of range.
std::optional<TimeMs> parse_civil_time_ms(std::string_view text);
// Inverse for messages: "YYYY-MM-DD HH:MM:SS" of epoch milliseconds (UTC, seconds truncated).
std::string format_civil_time(TimeMs epoch_ms);

// Number of '\n' in text (used to reserve job vectors).
std::size_t count_lines(std::string_view text);
// File name without directories and without ".gz" and the last extension: "a/trace_x.csv.gz"
// -> "trace_x".
std::string file_stem(const std::string& path);

// Fields of the first line (header) of CSV text, trimmed and unquoted; BOM and CR removed.
std::vector<std::string> header_fields(std::string_view text);
// `text` without a leading UTF-8 byte-order mark.
inline std::string_view without_bom(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
}
// Whether every name in `names` is among the header fields.
bool header_has(const std::vector<std::string>& header, std::initializer_list<const char*> names);

struct ColumnSpec {
  const char* name;
  bool required;
};

// A header row mapped to the columns a reader knows. Unknown columns are ignored.
class ColumnIndex {
 public:
  // Throws TraceError at `line` for a missing required column or a known column named twice.
  ColumnIndex(const std::string& path, std::size_t line,
              const std::vector<std::string_view>& header, std::span<const ColumnSpec> specs);
  // Positional columns for files without a header row: column c is field c.
  ColumnIndex(std::span<const ColumnSpec> specs, std::size_t width);
  bool has(std::size_t c) const { return index_[c] != kMissing; }
  std::size_t position(std::size_t c) const { return index_[c]; }
  std::size_t width() const { return width_; }
  const char* name(std::size_t c) const { return specs_[c].name; }

  static constexpr std::size_t kMissing = static_cast<std::size_t>(-1);

 private:
  std::span<const ColumnSpec> specs_;
  std::vector<std::size_t> index_;
  std::size_t width_ = 0;
  bool positional_ = false;

 public:
  bool positional() const { return positional_; }
};

// Reads the fields of one row through a ColumnIndex; every failure names column and value.
class RowParser {
 public:
  RowParser(const std::string& path, const ColumnIndex& columns) : path_(path), columns_(columns) {}

  // Binds the next row. Throws if its field count differs from the header's.
  void bind(const std::vector<std::string_view>& fields, std::size_t line);
  std::size_t line() const { return line_; }
  const std::string& path() const { return path_; }

  bool has(std::size_t c) const { return columns_.has(c); }
  // Trimmed text of column c; empty if the file has no such column.
  std::string_view text(std::size_t c) const;
  // Whether column c is absent or holds a "no value" token (is_missing).
  bool missing(std::size_t c) const { return !has(c) || is_missing(text(c)); }

  // Integer in [lo, hi]; "4.0" is accepted as 4 (pandas writes integers as floats).
  std::int64_t integer(std::size_t c, std::int64_t lo, std::int64_t hi, const char* expected) const;
  // Finite number >= lo.
  double number(std::size_t c, double lo, const char* expected) const;
  // Decimal seconds to milliseconds (rounded once), >= 0, or > 0 unless allow_zero.
  TimeMs seconds(std::size_t c, bool allow_zero) const;
  // parse_civil_time_ms of the column.
  TimeMs civil_time(std::size_t c) const;

  // "column 'NAME': expected EXPECTED, got 'VALUE'" at the bound line.
  [[noreturn]] void fail(std::size_t c, std::string_view expected) const;
  // "MESSAGE" at the bound line.
  [[noreturn]] void fail_message(const std::string& message) const;

 private:
  const std::string& path_;
  const ColumnIndex& columns_;
  const std::vector<std::string_view>* fields_ = nullptr;
  std::size_t line_ = 0;
};

// A CSV file whose first row is a header mapped to `specs`; next() binds each following row to
// `row`. The text must outlive it. Throws TraceError "PATH:1: empty file: expected a header
// row" for a file without rows, and ColumnIndex's errors for its header.
class HeaderedCsv {
 public:
  HeaderedCsv(const std::string& path, std::string_view text, std::span<const ColumnSpec> specs);
  HeaderedCsv(const HeaderedCsv&) = delete;
  HeaderedCsv& operator=(const HeaderedCsv&) = delete;
  bool next();
  const RowParser& row() const { return row_; }

 private:
  CsvReader csv_;
  std::vector<std::string_view> fields_;
  ColumnIndex columns_;
  RowParser row_;
};

// Jobs left out by a reader, counted per reason in first-seen order.
class SkipCounter {
 public:
  void add(std::string_view reason, std::uint64_t count = 1);
  std::uint64_t total() const;
  const std::vector<std::pair<std::string, std::uint64_t>>& counts() const { return counts_; }
  void move_into(Trace& trace) { trace.skipped = std::move(counts_); }

 private:
  std::vector<std::pair<std::string, std::uint64_t>> counts_;
};

// GPU type columns that may name several accepted types, "A|B": one name is a constraint
// (JobSpec::gpu_type), several distinct names a set (JobSpec::gpu_type_set, interned once per
// distinct text into Trace::gpu_type_sets).
class GpuTypeSets {
 public:
  // Sets the job's gpu_type or gpu_type_set from `text`; false when a name between bars is empty.
  bool assign(std::string_view text, Trace& trace, JobSpec& job);

 private:
  std::map<std::string, std::uint32_t, std::less<>> ids_;  // text -> set
};

// "861 never scheduled, 1088 CPU-only (num_gpu 0)"; empty if nothing was skipped.
std::string describe_skipped(const std::vector<std::pair<std::string, std::uint64_t>>& skipped);

// Throws TraceError at the second occurrence of an id: "column 'ID_COLUMN': duplicate id 'X'
// (first at line N)". Linear time; no allocation per job.
void check_unique_ids(const Trace& trace, const std::string& path, std::string_view id_column);

// Throws "no usable jobs" (naming the skip counts) if the trace is empty.
void require_jobs(const Trace& trace, const std::string& path);

// Shifts submit times so the earliest is 0; returns the old earliest (the epoch origin).
TimeMs rebase_to_first_submit(Trace& trace);

}  // namespace schedlab::trace_kit
