#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

namespace {

// The gzip trailer's ISIZE: the uncompressed size modulo 2^32 (of the last member); 0 if
// unreadable. Only a capacity hint.
std::size_t gzip_size_hint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(0, std::ios::end);
  const auto compressed = static_cast<std::size_t>(std::max<std::streamoff>(0, in.tellg()));
  in.seekg(-4, std::ios::end);
  unsigned char b[4] = {0, 0, 0, 0};
  if (!in.read(reinterpret_cast<char*>(b), 4)) return 0;
  const std::size_t size = static_cast<std::size_t>(b[0]) | static_cast<std::size_t>(b[1]) << 8 |
                           static_cast<std::size_t>(b[2]) << 16 |
                           static_cast<std::size_t>(b[3]) << 24;
  // A damaged trailer must not reserve absurd amounts: text rarely compresses beyond 32:1.
  return std::min(size, 32 * compressed);
}

// Refuses what is not a regular file: a directory would read as garbage or an absurd size, a
// named pipe could block forever.
void require_regular_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    const int error = ec ? ec.value() : ENOENT;
    throw TraceError(path, fmt::format("cannot open for reading: {}", std::strerror(error)));
  }
  if (fs::is_directory(status)) throw TraceError(path, "is a directory, not a file");
  if (!fs::is_regular_file(status))
    throw TraceError(path,
                     "not a regular file (a named pipe, socket or device): inputs are read from "
                     "files; write a stream to a file first");
}

// Inflating stops beyond this many bytes per compressed byte (and beyond 64 MiB): traces
// compress 3x to 30x, so more is a decompression bomb or corruption, not a trace. Whatever the
// ratio, it stops beyond kMaxInflatedBytes (docs/traces.md): a larger input is read
// uncompressed.
constexpr std::size_t kMaxInflationRatio = 200;
constexpr std::size_t kInflationFloorBytes = std::size_t{64} << 20;
constexpr std::size_t kMaxInflatedBytes = std::size_t{1} << 30;

std::string read_gzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr)
    throw TraceError(path, fmt::format("cannot open for reading: {}", std::strerror(errno)));
  gzbuffer(file, 1 << 17);
  std::string out;
  out.reserve(std::min(gzip_size_hint(path), kMaxInflatedBytes) + 1);
  std::error_code size_ec;
  const std::uintmax_t compressed = std::filesystem::file_size(path, size_ec);
  const std::size_t ratio_limit =
      std::max(kInflationFloorBytes,
               static_cast<std::size_t>(size_ec ? 0 : compressed) * kMaxInflationRatio);
  const std::size_t limit = std::min(ratio_limit, kMaxInflatedBytes);
  char buffer[1 << 16];
  for (;;) {
    const int n = gzread(file, buffer, sizeof buffer);
    if (n < 0) {
      int code = 0;
      const std::string message = gzerror(file, &code);
      gzclose(file);
      throw TraceError(path, fmt::format("corrupt gzip data: {}", message));
    }
    if (n == 0) break;
    // Checked before appending, so the text never grows past the limit.
    if (out.size() + static_cast<std::size_t>(n) > limit) {
      gzclose(file);
      if (limit == kMaxInflatedBytes)
        throw TraceError(path, fmt::format("inflates to more than {} MiB, the limit for a "
                                           "compressed input: not read (decompress it first)",
                                           kMaxInflatedBytes >> 20));
      throw TraceError(path, fmt::format("inflates to more than {} MiB, over {}x its compressed "
                                         "size: not read (a decompression bomb or corrupt data?)",
                                         limit >> 20, kMaxInflationRatio));
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
  // A stream cut short reads as a clean end with the error recorded (Z_BUF_ERROR): check it,
  // and the close, which reports a last member that ended mid-stream.
  int code = Z_OK;
  const std::string message = gzerror(file, &code);
  const int closed = gzclose(file);
  if (code != Z_OK && code != Z_STREAM_END)
    throw TraceError(path, fmt::format("corrupt gzip data: {}", message));
  if (closed == Z_BUF_ERROR)
    throw TraceError(path, "corrupt gzip data: unexpected end of file (truncated?)");
  if (closed != Z_OK) throw TraceError(path, "corrupt gzip data: cannot close the stream");
  return out;
}

}  // namespace

std::string read_file_bytes(const std::string& path) {
  require_regular_file(path);
  if (path.ends_with(".gz")) return read_gzip(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path, fmt::format("cannot open for reading: {}", std::strerror(errno)));
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0) throw TraceError(path, "cannot read (not a regular file?)");
  std::string out(static_cast<std::size_t>(size), '\0');
  in.seekg(0, std::ios::beg);
  in.read(out.data(), size);
  if (!in) throw TraceError(path, "read failed");
  return out;
}

}  // namespace schedlab
