#include "schedlab/csv.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "schedlab/error.hpp"

namespace schedlab {

CsvReader::CsvReader(std::string_view text, std::string file, char delimiter)
    : text_(text), file_(std::move(file)), delimiter_(delimiter) {
  // A UTF-8 byte order mark is not part of the first column name.
  if (text_.size() >= 3 && std::memcmp(text_.data(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
}

bool CsvReader::next_row(std::vector<std::string_view>& fields) {
  fields.clear();
  unescaped_.clear();
  const std::size_t n = text_.size();
  // Skip empty lines.
  while (pos_ < n && (text_[pos_] == '\n' || text_[pos_] == '\r')) {
    if (text_[pos_] == '\n') ++next_line_;
    ++pos_;
  }
  if (pos_ >= n) return false;
  row_line_ = next_line_;
  for (;;) {
    if (pos_ < n && text_[pos_] == '"') {
      // Quoted field: "" is a literal quote; newlines inside are part of the field.
      const std::size_t quote_line = next_line_;
      ++pos_;
      std::string value;
      bool closed = false;
      while (pos_ < n) {
        const char c = text_[pos_];
        if (c == '"') {
          if (pos_ + 1 < n && text_[pos_ + 1] == '"') {
            value.push_back('"');
            pos_ += 2;
            continue;
          }
          ++pos_;
          closed = true;
          break;
        }
        if (c == '\n') ++next_line_;
        value.push_back(c);
        ++pos_;
      }
      if (!closed) throw TraceError(file_, quote_line, "unterminated quoted field");
      // Anything up to the next delimiter after the closing quote is kept verbatim.
      const std::size_t rest = pos_;
      while (pos_ < n && text_[pos_] != delimiter_ && text_[pos_] != '\n' && text_[pos_] != '\r')
        ++pos_;
      value.append(text_.substr(rest, pos_ - rest));
      unescaped_.push_back(std::move(value));
      fields.emplace_back(unescaped_.back());
    } else {
      const std::size_t start = pos_;
      // Fast path: scan to the next delimiter or line end.
      while (pos_ < n) {
        const char c = text_[pos_];
        if (c == delimiter_ || c == '\n' || c == '\r') break;
        ++pos_;
      }
      fields.emplace_back(text_.substr(start, pos_ - start));
    }
    if (pos_ >= n) return true;
    const char c = text_[pos_];
    if (c == delimiter_) {
      ++pos_;
      continue;
    }
    // Line end: consume \r\n, \n or \r.
    if (c == '\r') ++pos_;
    if (pos_ < n && text_[pos_] == '\n') {
      ++pos_;
    }
    ++next_line_;
    return true;
  }
}

std::string_view trim(std::string_view text) {
  std::size_t b = 0;
  std::size_t e = text.size();
  while (b < e && (text[b] == ' ' || text[b] == '\t')) ++b;
  while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t')) --e;
  return text.substr(b, e - b);
}

std::vector<std::string_view> split_on(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) return parts;
    begin = end + 1;
  }
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

std::optional<TimeMs> seconds_to_ms(double seconds) {
  const double ms = seconds * 1000.0;
  if (!std::isfinite(ms) || std::fabs(ms) > static_cast<double>(kMaxTimeMs)) return std::nullopt;
  return static_cast<TimeMs>(std::llround(ms));
}

bool seconds_too_large(std::string_view text) {
  text = trim(text);
  if (text.empty()) return false;
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);  // +-HUGE_VAL beyond double's range
  if (end != copy.c_str() + copy.size() || std::isnan(value)) return false;
  return std::fabs(value) * 1000.0 > static_cast<double>(kMaxTimeMs);
}

std::optional<TimeMs> parse_seconds_ms(std::string_view text) {
  text = trim(text);
  bool negative = false;
  std::string_view digits = text;
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  // Exact decimal path: [digits][.digits], rounded half away from zero at the millisecond.
  const std::size_t dot = digits.find('.');
  const std::string_view whole = digits.substr(0, dot);
  const std::string_view frac =
      dot == std::string_view::npos ? std::string_view() : digits.substr(dot + 1);
  auto all_digits = [](std::string_view s) {
    for (char c : s)
      if (c < '0' || c > '9') return false;
    return true;
  };
  if (!digits.empty() && (!whole.empty() || !frac.empty()) && all_digits(whole) &&
      all_digits(frac) && whole.size() <= 12) {
    std::int64_t ms = 0;
    for (char c : whole) ms = ms * 10 + (c - '0');
    ms *= 1000;
    std::int64_t frac_ms = 0;
    for (std::size_t i = 0; i < 3; ++i)
      frac_ms = frac_ms * 10 + (i < frac.size() ? frac[i] - '0' : 0);
    ms += frac_ms;
    if (frac.size() > 3 && frac[3] >= '5') ++ms;
    return negative ? -ms : ms;
  }
  // Anything else that is a finite number (exponents, huge values) goes through double.
  const auto value = parse_double(text);
  if (!value) return std::nullopt;
  return seconds_to_ms(*value);
}

CsvHeader::CsvHeader(const std::vector<std::string_view>& names) {
  names_.reserve(names.size());
  for (auto name : names) names_.emplace_back(trim(name));
}

CsvHeader::CsvHeader(const std::vector<std::string_view>& names, const std::string& file,
                     std::size_t line)
    : CsvHeader(names) {
  std::unordered_set<std::string_view> seen;
  for (const std::string& name : names_) {
    if (!name.empty() && !seen.insert(name).second)
      throw TraceError(file, line, "column '" + name + "' appears twice in the header");
  }
}

std::optional<std::size_t> CsvHeader::find(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return i;
  return std::nullopt;
}

}  // namespace schedlab
