// Internal: the built-in trace formats, one factory per reader file.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "reader_kit.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

TraceFormat native_trace_format();

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

ReaderDef acme_reader();
ReaderDef alibaba_openb_reader();
ReaderDef alibaba_pai_reader();
ReaderDef helios_reader();
ReaderDef itp_reader();
ReaderDef native_reader();
ReaderDef philly_csv_reader();
ReaderDef philly_json_reader();
ReaderDef philly_vc_reader();
ReaderDef swf_reader();

}  // namespace schedlab
