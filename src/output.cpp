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
                            const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ConfigError(fmt::format("{}: cannot create output directory: {}", dir, ec.message()));
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
      throw ConfigError(fmt::format("{}: cannot rename output file: {}", final_path.string(), ec.message()));
    }
  }
}

double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  const double rounded = std::round(value * scale) / scale;
  return rounded == 0.0 ? 0.0 : rounded;  // no "-0"
}

std::string fixed(double value, int decimals) {
  return fmt::format("{:.{}f}", round_to(value, decimals), decimals);
}

}  // namespace schedlab
