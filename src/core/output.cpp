#include "schedlab/output.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "schedlab/error.hpp"

namespace schedlab {

namespace fs = std::filesystem;

void write_files_atomically(const std::string& dir,
                            const std::vector<std::pair<std::string, std::string_view>>& files) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw ConfigError(fmt::format("{}: cannot create output directory: {}", dir, ec.message()));
  std::vector<std::pair<fs::path, fs::path>> staged;
  auto discard = [&staged] {
    std::error_code ignored;
    for (const auto& [tmp, final_path] : staged) fs::remove(tmp, ignored);
  };
  for (const auto& [name, content] : files) {
    const fs::path final_path = fs::path(dir) / name;
    const fs::path tmp = fs::path(dir) / fmt::format(".{}.tmp.{}", name, ::getpid());
    staged.emplace_back(tmp, final_path);
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) {
      discard();
      throw ConfigError(fmt::format("{}: cannot write output file", final_path.string()));
    }
  }
  for (const auto& [tmp, final_path] : staged) {
    fs::rename(tmp, final_path, ec);
    if (ec) {
      discard();
      throw ConfigError(
          fmt::format("{}: cannot rename output file: {}", final_path.string(), ec.message()));
    }
  }
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
