// RFC 4180 CSV tokenizer and strict field parsers shared by the trace readers.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schedlab/types.hpp"

namespace schedlab {

// Splits text into rows of fields. Handles quoted fields (with "" escapes and embedded
// newlines), CRLF line ends, and skips empty lines. Field views stay valid until the next call.
class CsvReader {
 public:
  CsvReader(std::string_view text, std::string file, char delimiter = ',');
  // Next non-empty row; false at end of input. Throws TraceError on an unterminated quote.
  bool next_row(std::vector<std::string_view>& fields);
  // 1-based line where the current row starts.
  std::size_t line() const { return row_line_; }
  const std::string& file() const { return file_; }

 private:
  std::string_view text_;
  std::string file_;
  char delimiter_;
  std::size_t pos_ = 0;
  std::size_t next_line_ = 1;
  std::size_t row_line_ = 0;
  std::deque<std::string> unescaped_;
};

std::string_view trim(std::string_view text);

// The parts of `text` between `separator`s, untrimmed, empty ones kept ("a,,b" has three; a text
// without the separator is one part). Views into `text`.
std::vector<std::string_view> split_on(std::string_view text, char separator);

// Strict parsers: the whole (trimmed) text must be the number. nullopt otherwise.
std::optional<std::int64_t> parse_int(std::string_view text);
std::optional<double> parse_double(std::string_view text);
// Decimal seconds (e.g. "12", "0.5", "1e3") to milliseconds, rounded half away from zero once.
std::optional<TimeMs> parse_seconds_ms(std::string_view text);
// Double seconds to milliseconds, rounded half away from zero; nullopt if out of range.
std::optional<TimeMs> seconds_to_ms(double seconds);
// The clock's limit: every time and duration is at most 9e12 s (about 285,000 years) in
// magnitude; a larger one is an input error that says so.
inline constexpr TimeMs kMaxTimeMs = 9'000'000'000'000'000;
inline constexpr const char* kMaxTimeText = "9e12 s (about 285,000 years)";
// True if `text` is a finite number of seconds beyond the clock's limit (so "too large", not
// "not a number").
bool seconds_too_large(std::string_view text);

// Column lookup by header name (exact match after trimming).
class CsvHeader {
 public:
  explicit CsvHeader(const std::vector<std::string_view>& names);
  // As above, for the header row at `file`:`line`; a name (not empty) that appears twice throws
  // TraceError "FILE:LINE: column 'NAME' appears twice in the header".
  CsvHeader(const std::vector<std::string_view>& names, const std::string& file, std::size_t line);
  std::optional<std::size_t> find(std::string_view name) const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
};

}  // namespace schedlab
