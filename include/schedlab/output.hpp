// Writing results: output sets published together, single files replaced atomically, and the
// fixed formatting every output uses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedlab {

// The file that marks a directory's output set as complete.
inline constexpr const char* kCompleteMarker = ".schedlab-complete";

// Publishes an output set: the files one command writes into `dir`, as a whole. Creates `dir`
// if needed (ConfigError when `dir` is empty, exists and is not a directory, or one of the names
// exists there and is not a regular file), removes its completion marker (from then on the set
// reads as incomplete), writes each (name, content) to "dir/.name.tmp.<pid>", renames all, then
// writes the marker (listing the names). A set whose writing was interrupted (kill -9, power loss)
// therefore has no marker, and readers refuse it (require_complete_output_set). On a failure
// removes the temporaries and throws OutputError naming the file and the system's reason. The
// contents are viewed, not copied: they must outlive the call.
void write_files_atomically(const std::string& dir,
                            const std::vector<std::pair<std::string, std::string_view>>& files);

// Writes one file; no marker. What `path` names decides how (symlinks are followed to their
// final target first):
// - a regular file or nothing: replaced atomically (temporary name beside it, then rename);
// - a character device or a FIFO (/dev/null, a named pipe): written through, never replaced
//   (a FIFO's open waits for a reader);
// - a directory, a block device or a socket: refused with ConfigError, nothing written.
// Write errors throw OutputError naming the file and the system's reason (a full disk, EFBIG
// past `ulimit -f`); a temporary is never left behind. Before writing a regular file, removes
// that file's temporaries ".NAME.tmp.PID" whose process no longer exists (a killed writer's).
void write_file_atomically(const std::string& path, std::string_view content);

// The lock file inside an output directory while a command writes it ("PID HOST").
inline constexpr const char* kOutputLock = ".schedlab-lock";

// Exclusive use of an output directory for the lifetime of the object: creates the directory
// (and its missing parents), takes an advisory lock (flock) on DIR/.schedlab-lock, which holds
// "PID HOST" of the holder, and removes the temporaries earlier writers left in DIR
// (remove_stale_temporaries). Throws ConfigError when another process holds the lock (the
// message names its pid and host), when `dir` is empty or exists and is not a directory, and
// OutputError when the lock file cannot be created. On release removes the lock file, and the
// directories it created when they are still empty (a failed command leaves nothing behind).
// The lock dies with its process: a lock file left by a killed process is no obstacle.
class OutputDirLock {
 public:
  explicit OutputDirLock(const std::string& dir);
  ~OutputDirLock();
  OutputDirLock(const OutputDirLock&) = delete;
  OutputDirLock& operator=(const OutputDirLock&) = delete;

 private:
  std::string lock_path_;
  int fd_ = -1;
  std::vector<std::string> created_dirs_;  // deepest first
};

// Removes the temporaries of schedlab's own naming (".NAME.tmp.PID") in `dir`, not below it.
// Only for a directory under an OutputDirLock (a live writer's temporaries would go too).
void remove_stale_temporaries(const std::string& dir);

// Throws ConfigError "DIR: incomplete output set: ..." unless `dir` holds the completion marker.
void require_complete_output_set(const std::string& dir);

// Fixed-decimal formatting used by every output ("12.500" for (12.5, 3)): the value is rounded
// half away from zero to `decimals` places (0..9) and printed without exponent; "-0" never
// appears. Integer arithmetic, so it is exact and fast for |value| * 10^decimals < 9e15.
std::string fixed(double value, int decimals);
void append_fixed(std::string& out, double value, int decimals);
// A CSV field, quoted (RFC 4180) only when it holds a comma, quote or line break.
void append_csv_field(std::string& out, std::string_view text);
std::string csv_field(std::string_view text);
void append_int(std::string& out, std::int64_t value);
// Milliseconds as seconds with exactly 3 decimals ("12.345").
void append_seconds(std::string& out, std::int64_t ms);
// Rounds to `decimals` places (half away from zero) for JSON output.
double round_to(double value, int decimals);

}  // namespace schedlab
