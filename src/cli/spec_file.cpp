// Spec files of the commands (sweep specs, leaderboard suites): one JSON object read from a
// file, and the directory its relative paths are resolved against.
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/trace.hpp"

namespace schedlab::cli {

SpecFile read_spec_file(const std::string& path) {
  const std::string text = read_file_bytes(path);
  SpecFile spec;
  try {
    spec.json = parse_json_text<nlohmann::ordered_json>(text, path);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not valid JSON: {}", path, json_error_text(e)));
  }
  if (!spec.json.is_object()) throw ConfigError(fmt::format("{}: expected a JSON object", path));
  spec.base_dir = std::filesystem::path(path).parent_path().string();
  if (spec.base_dir.empty()) spec.base_dir = ".";
  return spec;
}

}  // namespace schedlab::cli
