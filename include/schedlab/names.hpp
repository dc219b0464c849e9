// Suggestions for misspelled names (policies, placements, formats, GPU types, subcommands):
// "did you mean 'easy-backfill'?".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

// The candidate closest to `name`, or nullopt when none is close. Names are compared without
// regard to case and to '_' versus '-'; a candidate is close when it then equals `name`, or
// when its edit distance d (Damerau: a swap of neighbours counts once) is at most 2 with
// 3d <= length + 2 ("rn" -> "run", "sfj" -> "sjf"). Ties: the first candidate in the given order.
std::optional<std::string> closest_name(std::string_view name,
                                        const std::vector<std::string>& candidates);

// Whether two names are the same without regard to case and to '_' versus '-'.
bool same_name(std::string_view a, std::string_view b);

// "; did you mean 'X'?" for closest_name's answer, or "" when there is none.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace schedlab
