// Reading job traces. One reader per format; `native` is schedlab's own CSV.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "schedlab/job.hpp"

namespace schedlab {

struct TraceReadOptions {
  std::string format = "auto";  // a registered format name, or auto
};

// A trace format: how to recognise it and how to read it.
struct TraceFormat {
  std::string name;
  std::string summary;
  // Whether `text` (the file's content) looks like this format; used by --format auto.
  std::function<bool(std::string_view path, std::string_view text)> detect;
  // Reads the whole content. Throws TraceError "FILE:LINE: message" on bad input.
  std::function<Trace(const std::string& path, std::string_view text)> read;
};

// Registered formats sorted by name (each file of src/trace/formats/ registers one).
std::vector<TraceFormat> trace_formats();

// Reads a regular file's bytes; a name ending in .gz is decompressed (at most 200x its size, and
// at least 64 MiB). Throws TraceError naming the file and the reason: missing, unreadable, a
// directory or not a regular file (named pipe, device), corrupt or over-inflating gzip.
std::string read_file_bytes(const std::string& path);

// Reads a trace; with format "auto" the first format whose detect() accepts it wins (formats
// are tried by name order, native last). Throws TraceError / ConfigError.
Trace read_trace(const std::string& path, const TraceReadOptions& options = {});

// Reads schedlab's native CSV from memory (used by tests and by read_trace).
Trace read_native_trace(const std::string& path, std::string_view text);

}  // namespace schedlab
