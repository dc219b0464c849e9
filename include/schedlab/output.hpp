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
// if needed, removes its completion marker (from then on the set reads as incomplete), writes
// each (name, content) to "dir/.name.tmp.<pid>", renames all, then writes the marker (listing
// the names). A set whose writing was interrupted (kill -9, power loss) therefore has no
// marker, and readers refuse it (require_complete_output_set). On a failure removes the
// temporaries and throws OutputError naming the file and the system's reason. The contents are
// viewed, not copied: they must outlive the call.
void write_files_atomically(const std::string& dir,
                            const std::vector<std::pair<std::string, std::string_view>>& files);

// Replaces one file atomically (temporary name, then rename); no marker. Throws OutputError.
void write_file_atomically(const std::string& path, std::string_view content);

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
