#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "readers.hpp"
#include "schedlab/error.hpp"

namespace schedlab {

const std::vector<TraceFormat>& trace_formats() {
  static const std::vector<TraceFormat> formats = [] {
    std::vector<TraceFormat> list = {native_trace_format()};
    std::sort(list.begin(), list.end(),
              [](const TraceFormat& a, const TraceFormat& b) { return a.name < b.name; });
    return list;
  }();
  return formats;
}

Trace read_trace(const std::string& path, const TraceReadOptions& options) {
  const std::string bytes = read_file_bytes(path);
  const auto& formats = trace_formats();
  if (options.format != "auto") {
    for (const auto& format : formats)
      if (format.name == options.format) return format.read(path, bytes);
    std::string known = "auto";
    for (const auto& format : formats) known += ", " + format.name;
    throw ConfigError(fmt::format("--format: unknown trace format '{}' (known: {})", options.format, known));
  }
  // Specific formats first (by name); native is the fallback.
  const TraceFormat* chosen = nullptr;
  for (const auto& format : formats) {
    if (format.name == "native") continue;
    if (format.detect(path, bytes)) {
      chosen = &format;
      break;
    }
  }
  if (chosen == nullptr) {
    for (const auto& format : formats)
      if (format.name == "native") chosen = &format;
  }
  SCHEDLAB_ASSERT(chosen != nullptr, "the native format is registered");
  if (chosen->name != "native") spdlog::info("{}: detected format '{}'", path, chosen->name);
  return chosen->read(path, bytes);
}

}  // namespace schedlab
