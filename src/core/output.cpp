#include "schedlab/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "schedlab/error.hpp"

namespace schedlab {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_output(const fs::path& path, const std::string& what, int error) {
  throw OutputError(fmt::format("{}: cannot {}: {}", path.string(), what, std::strerror(error)));
}

// Writes `content` to `path` (created or truncated), all of it, and closes it; errno on failure.
int write_whole_file(const fs::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      return error;
    }
    written += static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0 ? 0 : errno;
}

void create_directory(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw OutputError(
        fmt::format("{}: cannot create output directory: {}", dir, std::strerror(ec.value())));
}

fs::path temporary_beside(const fs::path& final_path) {
  return final_path.parent_path() /
         fmt::format(".{}.tmp.{}", final_path.filename().string(), ::getpid());
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  const fs::path final_path(path);
  const fs::path tmp = temporary_beside(final_path);
  if (const int error = write_whole_file(tmp, content); error != 0) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    fail_output(final_path, "write output file", error);
  }
  if (::rename(tmp.c_str(), final_path.c_str()) != 0) {
    const int error = errno;
    std::error_code ignored;
    fs::remove(tmp, ignored);
    fail_output(final_path, "rename output file into place", error);
  }
}

void write_files_atomically(const std::string& dir,
                            const std::vector<std::pair<std::string, std::string_view>>& files) {
  create_directory(dir);
  const fs::path marker = fs::path(dir) / kCompleteMarker;
  if (::unlink(marker.c_str()) != 0 && errno != ENOENT)
    fail_output(marker, "remove the completion marker", errno);
  std::vector<std::pair<fs::path, fs::path>> staged;
  auto discard = [&staged] {
    std::error_code ignored;
    for (const auto& [tmp, final_path] : staged) fs::remove(tmp, ignored);
  };
  std::string names;
  for (const auto& [name, content] : files) {
    const fs::path final_path = fs::path(dir) / name;
    const fs::path tmp = temporary_beside(final_path);
    staged.emplace_back(tmp, final_path);
    names += name + "\n";
    if (const int error = write_whole_file(tmp, content); error != 0) {
      discard();
      fail_output(final_path, "write output file", error);
    }
  }
  for (const auto& [tmp, final_path] : staged) {
    if (::rename(tmp.c_str(), final_path.c_str()) != 0) {
      const int error = errno;
      discard();
      fail_output(final_path, "rename output file into place", error);
    }
  }
  write_file_atomically(marker.string(), names);
}

void require_complete_output_set(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / kCompleteMarker, ec))
    throw ConfigError(fmt::format(
        "{}: incomplete output set: no {} marker (the command writing it was interrupted, or "
        "it was not written by schedlab); run it again",
        dir, kCompleteMarker));
}

double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  const double rounded = std::round(value * scale) / scale;
  return rounded == 0.0 ? 0.0 : rounded;  // no "-0"
}

namespace {
constexpr std::int64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                   100000, 1000000, 10000000, 100000000, 1000000000};

void append_scaled(std::string& out, std::int64_t scaled, int decimals) {
  if (scaled < 0) {
    out.push_back('-');
    scaled = -scaled;
  }
  const std::int64_t unit = kPow10[decimals];
  append_int(out, scaled / unit);
  if (decimals == 0) return;
  out.push_back('.');
  char digits[9];
  std::int64_t frac = scaled % unit;
  for (int i = decimals - 1; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  out.append(digits, static_cast<std::size_t>(decimals));
}
}  // namespace

void append_int(std::string& out, std::int64_t value) {
  const fmt::format_int text(value);
  out.append(text.data(), text.size());
}

void append_fixed(std::string& out, double value, int decimals) {
  SCHEDLAB_ASSERT(decimals >= 0 && decimals <= 9, "fixed() decimals in 0..9");
  const double scaled = value * static_cast<double>(kPow10[decimals]);
  if (!std::isfinite(scaled) || std::fabs(scaled) >= 9.0e15) {
    out += fmt::format("{:.{}f}", value, decimals);
    return;
  }
  append_scaled(out, static_cast<std::int64_t>(std::llround(scaled)), decimals);
}

void append_seconds(std::string& out, std::int64_t ms) {
  append_scaled(out, ms, 3);
}

void append_csv_field(std::string& out, std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    out.append(text);
    return;
  }
  out.push_back('"');
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

std::string csv_field(std::string_view text) {
  std::string out;
  append_csv_field(out, text);
  return out;
}

std::string fixed(double value, int decimals) {
  std::string out;
  append_fixed(out, value, decimals);
  return out;
}

}  // namespace schedlab
