#include "schedlab/names.hpp"

#include <algorithm>
#include <cctype>

namespace schedlab {

namespace {

std::string folded(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (const char c : name)
    out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
// neighbouring characters each count 1.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

}  // namespace

bool same_name(std::string_view a, std::string_view b) {
  return folded(a) == folded(b);
}

std::optional<std::string> closest_name(std::string_view name,
                                        const std::vector<std::string>& candidates) {
  // Long inputs (a pasted line, a whole file name) are not names anyone misspelled.
  constexpr std::size_t kMaxNameChars = 64;
  if (name.empty() || name.size() > kMaxNameChars) return std::nullopt;
  const std::string wanted = folded(name);
  std::optional<std::string> best;
  std::size_t best_distance = 3;  // larger than any accepted distance
  for (const std::string& candidate : candidates) {
    if (candidate.size() > kMaxNameChars) continue;
    const std::size_t distance = edit_distance(wanted, folded(candidate));
    if (distance * 3 > wanted.size() + 2) continue;  // too far for its length
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const auto closest = closest_name(name, candidates);
  return closest ? "; did you mean '" + *closest + "'?" : "";
}

}  // namespace schedlab
