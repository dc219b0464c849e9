// Writing result files atomically: every file is written to a temporary name in the target
// directory and renamed only after all of them were written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedlab {

// Creates `dir` if needed, writes each (name, content) to "dir/.name.tmp.<pid>", then renames
// all. On any failure removes the temporaries and throws ConfigError; nothing partial remains.
// The contents are viewed, not copied: they must outlive the call.
void write_files_atomically(const std::string& dir,
                            const std::vector<std::pair<std::string, std::string_view>>& files);

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
