// Writing result files atomically: every file is written to a temporary name in the target
// directory and renamed only after all of them were written.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace schedlab {

// Creates `dir` if needed, writes each (name, content) to "dir/.name.tmp.<pid>", then renames
// all. On any failure removes the temporaries and throws ConfigError; nothing partial remains.
void write_files_atomically(const std::string& dir,
                            const std::vector<std::pair<std::string, std::string>>& files);

// Fixed-decimal formatting used by every output ("12.500" for (12.5, 3)).
std::string fixed(double value, int decimals);
// Rounds to `decimals` places (half away from zero) for JSON output.
double round_to(double value, int decimals);

}  // namespace schedlab
