// Internal: how a trace format reads a file. Each format is one file in src/trace/formats/ that
// registers its ReaderDef with SCHEDLAB_REGISTER(ReaderDef, ...); read_trace looks formats up in
// Registry<ReaderDef> (sorted by name).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "schedlab/reader_kit.hpp"
#include "schedlab/registry.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

// What a reader returns before the shared finishing steps (src/trace/trace_formats.cpp):
// times as the file gives them, either relative to the trace start or absolute (epoch ms).
struct RawTrace {
  Trace trace;
  bool absolute_times = false;  // true: submit_ms is epoch ms; rebased so the first submit is 0
};

struct ReaderDef {
  std::string name;
  std::string summary;
  // Cheap: looks at the header (first line) or the first bytes only.
  std::function<bool(std::string_view path, std::string_view text)> detect;
  std::function<RawTrace(const std::string& path, std::string_view text)> read_raw;
  // Column named in duplicate-id messages; nullptr if the reader checks ids itself.
  const char* id_column = nullptr;
};

}  // namespace schedlab
