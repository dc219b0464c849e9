// track_score_chart: the overall scores of a track as a bar chart (report_svg's bar chart).
#include "leaderboard_chart.hpp"

#include <string>

#include "schedlab/output.hpp"
#include "schedlab/report_svg.hpp"

namespace schedlab {

namespace {

constexpr int kScoreDecimals = 2;

}  // namespace

std::string track_score_chart(const LeaderboardTrack& track, const Leaderboard& board) {
  const Ranking& score = board.overall.back();
  report::BarChart chart;
  chart.title = track.name.empty() ? "Overall score" : "Overall score: track " + track.name;
  chart.axis_label = "score (mean rank, lower is better)";
  report::BarSegment bars;
  bool intervals = false;
  for (const auto& s : score.standings) {
    chart.categories.push_back(track.policies[s.policy]);
    chart.colors.push_back(report::palette_color(s.policy));
    bars.values.push_back(s.value.mean);
    chart.errors.push_back(s.value.ci95);
    intervals = intervals || s.value.n >= 2;
  }
  if (!intervals) chart.errors.clear();
  chart.segments.push_back(std::move(bars));
  chart.value_text = [](double value) { return fixed(value, kScoreDecimals); };
  return report::render_bar_chart(chart);
}

}  // namespace schedlab
