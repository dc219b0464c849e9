// Helpers shared by the trace reader tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "schedlab/trace.hpp"

namespace schedlab::testing {

// Reads `text` as a file named `name` with the named format, exactly as read_trace would.
inline Trace read_as(const std::string& format, const std::string& name, const std::string& text) {
  for (const auto& f : trace_formats())
    if (f.name == format) return f.read(name, text);
  throw std::logic_error("no trace format " + format);
}

// Name of the format auto-detection picks for `text` (native when none matches).
inline std::string detected(const std::string& name, const std::string& text) {
  for (const auto& f : trace_formats())
    if (f.name != "native" && f.detect(name, text)) return f.name;
  return "native";
}

// A file of the public traces under ../shared/traces.
inline std::string shared_trace(const std::string& relative) {
  return std::string(SCHEDLAB_SHARED_DIR) + "/traces/" + relative;
}
inline bool have_shared_traces() {
  std::error_code ec;
  return std::filesystem::is_directory(shared_trace(""), ec);
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline double gpu_hours(const Trace& trace) {
  double gpu_ms = 0;
  for (const auto& job : trace.jobs)
    gpu_ms += static_cast<double>(job.gpus) * static_cast<double>(job.duration_ms);
  return gpu_ms / 3.6e6;
}

inline std::uint64_t skipped_count(const Trace& trace, const std::string& reason) {
  for (const auto& [r, n] : trace.skipped)
    if (r == reason) return n;
  return 0;
}

}  // namespace schedlab::testing
