// The chart of a track's overall standings, for leaderboard.html.
#pragma once

#include <string>

#include "schedlab/leaderboard.hpp"

namespace schedlab {

// Inline SVG: one horizontal bar per policy, in rank order, of its overall score (mean rank,
// lower is better) with its 95% confidence interval as a whisker (with 2 or more replicates).
std::string track_score_chart(const LeaderboardTrack& track, const Leaderboard& board);

}  // namespace schedlab
