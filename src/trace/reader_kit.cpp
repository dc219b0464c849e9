#include "schedlab/reader_kit.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"

namespace schedlab::trace_kit {

bool is_missing(std::string_view text) {
  text = trim(text);
  return text.empty() || text == "NaN" || text == "nan" || text == "None" || text == "null" ||
         text == "NULL" || text == "NA" || text == "\\N";
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(std::int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Reads exactly `width` digits at text[pos].
bool digits(std::string_view text, std::size_t pos, std::size_t width, unsigned& value) {
  if (pos + width > text.size()) return false;
  value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return true;
}

}  // namespace

std::optional<TimeMs> parse_civil_time_ms(std::string_view text) {
  text = trim(text);
  // YYYY-MM-DD?HH:MM:SS = 19 characters.
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (text.size() < 19 || !digits(text, 0, 4, year) || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) ||
      (text[10] != ' ' && text[10] != 'T') || !digits(text, 11, 2, hour) || text[13] != ':' ||
      !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59)
    return std::nullopt;
  std::size_t pos = 19;
  // Fraction of a second, rounded half up to the millisecond.
  std::int64_t frac_ms = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    std::int64_t scaled = 0;  // first four digits, in 1/10 ms
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (pos - start < 4) scaled = scaled * 10 + (text[pos] - '0');
      ++pos;
    }
    if (pos == start) return std::nullopt;
    for (std::size_t n = pos - start; n < 4; ++n) scaled *= 10;
    frac_ms = (scaled + 5) / 10;
  }
  std::int64_t offset_s = 0;
  if (pos < text.size()) {
    const char sign = text[pos];
    if (sign == 'Z' && pos + 1 == text.size()) {
      pos += 1;
    } else if (sign == '+' || sign == '-') {
      unsigned oh = 0, om = 0;
      if (!digits(text, pos + 1, 2, oh)) return std::nullopt;
      std::size_t after = pos + 3;
      if (after < text.size() && text[after] == ':') ++after;
      if (!digits(text, after, 2, om) || after + 2 != text.size() || oh > 23 || om > 59)
        return std::nullopt;
      offset_s = (sign == '+' ? 1 : -1) * (std::int64_t{oh} * 3600 + std::int64_t{om} * 60);
      pos = text.size();
    } else {
      return std::nullopt;
    }
  }
  if (pos != text.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(year, month, day);
  const std::int64_t seconds =
      days * 86400 + std::int64_t{hour} * 3600 + std::int64_t{minute} * 60 + second - offset_s;
  return seconds * 1000 + frac_ms;
}

std::string format_civil_time(TimeMs epoch_ms) {
  // civil_from_days (H. Hinnant).
  std::int64_t seconds = epoch_ms >= 0 ? epoch_ms / 1000 : (epoch_ms - 999) / 1000;
  std::int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  const std::int64_t sod = seconds - days * 86400;
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", y, m, d, sod / 3600, sod / 60 % 60,
                     sod % 60);
}

std::size_t count_lines(std::string_view text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string file_stem(const std::string& path) {
  std::string name =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (name.ends_with(".gz")) name.resize(name.size() - 3);
  const auto dot = name.find_last_of('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

std::vector<std::string> header_fields(std::string_view text) {
  text = without_bom(text);
  std::string_view line = text.substr(0, std::min(text.find('\n'), text.size()));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    std::string_view field = trim(line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
      field = field.substr(1, field.size() - 2);
    out.emplace_back(field);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

bool header_has(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (std::find(header.begin(), header.end(), name) == header.end()) return false;
  return true;
}

ColumnIndex::ColumnIndex(const std::string& path, std::size_t line,
                         const std::vector<std::string_view>& header,
                         std::span<const ColumnSpec> specs)
    : specs_(specs), index_(specs.size(), kMissing), width_(header.size()) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string_view name = trim(header[i]);
    for (std::size_t c = 0; c < specs.size(); ++c) {
      if (name != specs[c].name) continue;
      if (index_[c] != kMissing)
        throw TraceError(path, line, fmt::format("column '{}' appears twice in the header", name));
      index_[c] = i;
    }
  }
  for (std::size_t c = 0; c < specs.size(); ++c) {
    if (!specs[c].required || index_[c] != kMissing) continue;
    std::string required;
    for (const auto& s : specs)
      if (s.required) required += fmt::format("{}{}", required.empty() ? "" : ", ", s.name);
    throw TraceError(
        path, line,
        fmt::format("missing required column '{}' (required: {})", specs[c].name, required));
  }
}

ColumnIndex::ColumnIndex(std::span<const ColumnSpec> specs, std::size_t width)
    : specs_(specs), index_(specs.size(), kMissing), width_(width), positional_(true) {
  for (std::size_t c = 0; c < specs.size() && c < width; ++c) index_[c] = c;
}

void RowParser::bind(const std::vector<std::string_view>& fields, std::size_t line) {
  fields_ = &fields;
  line_ = line;
  if (fields.size() == columns_.width()) return;
  if (!columns_.positional())
    throw TraceError(path_, line,
                     fmt::format("expected {} fields as in the header, got {}", columns_.width(),
                                 fields.size()));
  std::string names;
  for (std::size_t c = 0; c < columns_.width(); ++c)
    names += fmt::format("{}{}", c ? ", " : "", columns_.name(c));
  throw TraceError(
      path_, line,
      fmt::format("expected {} fields ({}), got {}", columns_.width(), names, fields.size()));
}

std::string_view RowParser::text(std::size_t c) const {
  if (!columns_.has(c)) return {};
  return trim((*fields_)[columns_.position(c)]);
}

void RowParser::fail(std::size_t c, std::string_view expected) const {
  throw TraceError(
      path_, line_,
      fmt::format("column '{}': expected {}, got '{}'", columns_.name(c), expected, text(c)));
}

void RowParser::fail_message(const std::string& message) const {
  throw TraceError(path_, line_, message);
}

std::int64_t RowParser::integer(std::size_t c, std::int64_t lo, std::int64_t hi,
                                const char* expected) const {
  const std::string_view t = text(c);
  if (auto v = parse_int(t)) {
    if (*v < lo || *v > hi) fail(c, expected);
    return *v;
  }
  const auto d = parse_double(t);
  if (!d || *d != std::floor(*d) || *d < static_cast<double>(lo) || *d > static_cast<double>(hi))
    fail(c, expected);
  return static_cast<std::int64_t>(*d);
}

double RowParser::number(std::size_t c, double lo, const char* expected) const {
  const auto d = parse_double(text(c));
  if (!d || *d < lo) fail(c, expected);
  return *d;
}

TimeMs RowParser::seconds(std::size_t c, bool allow_zero) const {
  const auto ms = parse_seconds_ms(text(c));
  if (!ms && seconds_too_large(text(c)))
    fail(c, fmt::format("seconds of at most {} (too large)", kMaxTimeText).c_str());
  if (!ms || *ms < 0 || (!allow_zero && *ms == 0))
    fail(c, allow_zero ? "seconds >= 0" : "seconds > 0");
  return *ms;
}

TimeMs RowParser::civil_time(std::size_t c) const {
  const auto ms = parse_civil_time_ms(text(c));
  if (!ms) fail(c, "a time 'YYYY-MM-DD HH:MM:SS'");
  return *ms;
}

void SkipCounter::add(std::string_view reason, std::uint64_t count) {
  for (auto& [name, n] : counts_) {
    if (name == reason) {
      n += count;
      return;
    }
  }
  counts_.emplace_back(std::string(reason), count);
}

std::uint64_t SkipCounter::total() const {
  std::uint64_t sum = 0;
  for (const auto& entry : counts_) sum += entry.second;
  return sum;
}

std::string describe_skipped(const std::vector<std::pair<std::string, std::uint64_t>>& skipped) {
  std::string out;
  for (const auto& [reason, n] : skipped)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, reason);
  return out;
}

void check_unique_ids(const Trace& trace, const std::string& path, std::string_view id_column) {
  const std::size_t n = trace.jobs.size();
  if (n < 2) return;
  // Open addressing over job indexes; capacity a power of two at least twice the job count.
  std::size_t capacity = 16;
  while (capacity < 2 * n) capacity *= 2;
  constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  std::vector<std::uint32_t> slots(capacity, kEmpty);
  std::vector<std::size_t> hashes(n);
  const std::hash<std::string_view> hasher;
  for (std::size_t j = 0; j < n; ++j) {
    const std::string& id = trace.jobs[j].id;
    const std::size_t h = hasher(id);
    hashes[j] = h;
    std::size_t slot = h & (capacity - 1);
    for (;;) {
      const std::uint32_t other = slots[slot];
      if (other == kEmpty) {
        slots[slot] = static_cast<std::uint32_t>(j);
        break;
      }
      if (hashes[other] == h && trace.jobs[other].id == id)
        throw TraceError(path, trace.jobs[j].line,
                         fmt::format("column '{}': duplicate id '{}' (first at line {})", id_column,
                                     id, trace.jobs[other].line));
      slot = (slot + 1) & (capacity - 1);
    }
  }
}

void require_jobs(const Trace& trace, const std::string& path) {
  if (!trace.jobs.empty()) return;
  if (trace.skipped.empty()) throw TraceError(path, 2, "no jobs: the file has no data rows");
  throw TraceError(path, fmt::format("no usable jobs: every row was skipped ({})",
                                     describe_skipped(trace.skipped)));
}

TimeMs rebase_to_first_submit(Trace& trace) {
  if (trace.jobs.empty()) return 0;
  TimeMs origin = trace.jobs.front().submit_ms;
  for (const auto& job : trace.jobs) origin = std::min(origin, job.submit_ms);
  for (auto& job : trace.jobs) job.submit_ms -= origin;
  return origin;
}

namespace {

std::vector<std::string_view> header_row(CsvReader& csv, const std::string& path) {
  std::vector<std::string_view> fields;
  if (!csv.next_row(fields)) throw TraceError(path, 1, "empty file: expected a header row");
  return fields;
}

}  // namespace

HeaderedCsv::HeaderedCsv(const std::string& path, std::string_view text,
                         std::span<const ColumnSpec> specs)
    : csv_(text, path),
      fields_(header_row(csv_, path)),
      columns_(path, csv_.line(), fields_, specs),
      row_(csv_.file(), columns_) {}

bool HeaderedCsv::next() {
  if (!csv_.next_row(fields_)) return false;
  row_.bind(fields_, csv_.line());
  return true;
}

bool GpuTypeSets::assign(std::string_view text, Trace& trace, JobSpec& job) {
  if (text.find('|') == std::string_view::npos) {
    job.gpu_type = trace.strings.intern(text);
    return true;
  }
  if (const auto known = ids_.find(text); known != ids_.end()) {
    job.gpu_type_set = known->second;
    return true;
  }
  std::vector<StringId> set;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t bar = text.find('|', start);
    const std::string_view name = trim(
        text.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    start = bar == std::string_view::npos ? text.size() + 1 : bar + 1;
    if (name.empty()) return false;
    const StringId id = trace.strings.intern(name);
    if (std::find(set.begin(), set.end(), id) == set.end()) set.push_back(id);
  }
  if (set.size() == 1) {
    job.gpu_type = set.front();
    return true;
  }
  trace.gpu_type_sets.push_back(std::move(set));
  job.gpu_type_set = static_cast<std::uint32_t>(trace.gpu_type_sets.size() - 1);
  ids_.emplace(std::string(text), job.gpu_type_set);
  return true;
}

}  // namespace schedlab::trace_kit
