// The leaderboard's outputs: leaderboard.md and leaderboard.html from one page model (a section
// per track, tables in human units), and leaderboard.csv (one row per track, scope, metric and
// policy, raw values, with the metric per job class).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "leaderboard_chart.hpp"
#include "schedlab/error.hpp"
#include "schedlab/leaderboard.hpp"
#include "schedlab/output.hpp"
#include "schedlab/policy_card.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/text_page.hpp"

namespace schedlab {

namespace {

constexpr int kRankDecimals = 2;
constexpr int kCsvDecimals = 6;

constexpr const char* kValuesSentence =
    "Values are means over the replicates ± the half-width of their 95% confidence interval "
    "(Student t); the rank follows in parentheses (1 is best, **bold**). \"≈\" marks a policy "
    "whose difference from the rank-1 policy is not significant: the 95% confidence interval "
    "of their paired per-replicate differences contains 0. Times are in hours (h) or days (d), "
    "as each column's header says.";

// "1-10", "1-3,7".
std::string seeds_text(const std::vector<std::uint64_t>& seeds) {
  std::string out;
  for (std::size_t i = 0; i < seeds.size();) {
    std::size_t j = i;
    while (j + 1 < seeds.size() && seeds[j + 1] == seeds[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j > i ? fmt::format("{}-{}", seeds[i], seeds[j]) : std::to_string(seeds[i]);
    i = j + 1;
  }
  return out;
}

// How a column of values shows: time metrics (unit "s") in hours, or in days when every mean
// of the column is at least 2 days, with decimals that give the smallest non-zero mean three
// significant digits (1 to 3 decimals); other metrics in their catalog decimals and unit; overall
// mean ranks (no metric) with 2 decimals.
struct ColumnFormat {
  double divisor = 1.0;
  int decimals = kRankDecimals;
  std::string unit;  // for the header; "" = none shown
};

constexpr double kSecondsPerHour = 3600.0;
constexpr double kSecondsPerDay = 86400.0;
constexpr double kDaysFromSeconds = 2 * kSecondsPerDay;

bool is_time_metric(const LeaderboardMetric& metric) {
  return metric.info->unit == "s";
}

ColumnFormat column_format(const LeaderboardMetric* metric, const std::vector<double>& means) {
  ColumnFormat format;
  if (metric == nullptr) return format;
  if (!is_time_metric(*metric)) {
    format.decimals = metric->info->decimals;
    const std::string unit(metric->info->unit);
    if (unit != "ratio" && unit != "count") format.unit = unit;
    return format;
  }
  bool days = !means.empty();
  double smallest = 0;
  for (const double mean : means) {
    days = days && std::abs(mean) >= kDaysFromSeconds;
    if (mean != 0 && (smallest == 0 || std::abs(mean) < smallest)) smallest = std::abs(mean);
  }
  format.divisor = days ? kSecondsPerDay : kSecondsPerHour;
  format.unit.assign(1, days ? 'd' : 'h');
  format.decimals = 1;
  if (smallest > 0) {
    const int digits = 2 - static_cast<int>(std::floor(std::log10(smallest / format.divisor)));
    format.decimals = std::clamp(digits, 1, 3);
  }
  return format;
}

std::string value_text(const ColumnFormat& format, double value) {
  return fixed(value / format.divisor, format.decimals);
}

std::string mean_ci_text(const ColumnFormat& format, const MeanCi& value) {
  std::string text = value_text(format, value.mean);
  if (value.n >= 2) text += " ± " + value_text(format, value.ci95);
  return text;
}

// The metric's label with the unit its column shows ("mean wait (h)").
std::string column_heading(const LeaderboardMetric& metric, const ColumnFormat& format) {
  return format.unit.empty() ? std::string(metric.info->label)
                             : fmt::format("{} ({})", metric.info->label, format.unit);
}

// The metric's label, with its unit unless it is a time (whose unit a column chooses).
std::string metric_name(const LeaderboardMetric& metric) {
  return column_heading(metric,
                        is_time_metric(metric) ? ColumnFormat{} : column_format(&metric, {}));
}

// "value ± ci (rank)", with "≈" after the rank when the gap to rank 1 is not significant.
std::string standing_text(const ColumnFormat& format, const Standing& s) {
  std::string text = mean_ci_text(format, s.value) + fmt::format(" ({}", s.rank);
  if (s.rank > 1 && s.tested && !s.significant_vs_best) text += " ≈";
  text += ')';
  return s.rank == 1 ? "**" + text + "**" : text;
}

const Standing& standing_of(const Ranking& ranking, std::size_t policy) {
  for (const auto& s : ranking.standings)
    if (s.policy == policy) return s;
  SCHEDLAB_ASSERT(false, "every policy stands in every ranking");
  return ranking.standings.front();
}

// "sjf", "sjf = las" (tied), "sjf ≈ las" (the lead over the runner-up is not significant).
std::string winner_text(const LeaderboardTrack& track, const Ranking& ranking) {
  const auto& s = ranking.standings;
  std::string text = track.policies[s.front().policy];
  std::size_t k = 1;
  for (; k < s.size() && s[k].rank == 1; ++k) text += " = " + track.policies[s[k].policy];
  if (k < s.size() && s[k].tested && !s[k].significant_vs_best)
    text += " ≈ " + track.policies[s[k].policy];
  return text;
}

std::string replicates_sentence(const LeaderboardTrack& track) {
  const std::size_t n = track.seeds.size();
  std::string text =
      fmt::format("{} replicate{} per policy and trace (seed{} {}; workload resampling `{}`)", n,
                  n == 1 ? "" : "s", n == 1 ? "" : "s", seeds_text(track.seeds), track.resample);
  return text;
}

// The address of the card of the policy entry `policy` of `track` runs, or "" without
// `cards_href`.
std::string card_link(const LeaderboardTrack& track, const std::string& cards_href,
                      std::size_t policy) {
  if (cards_href.empty() || track.traces.empty()) return "";
  const auto& variants = track.traces.front().sweep.variants;
  SCHEDLAB_ASSERT(policy < variants.size(), "every board entry is a variant of each sweep");
  return cards_href + policy_card_file_name(variants[policy].policy);
}

// One track's sections; `level` is the level of its section headings (2, or 3 under a track
// heading).
void track_sections(Page& page, const LeaderboardSuite& suite, const LeaderboardTrack& track,
                    const Leaderboard& board, int level, const std::string& cards_href) {
  std::string metrics;
  for (const auto& m : track.metrics) {
    if (!metrics.empty()) metrics += "; ";
    metrics += fmt::format("{} (`{}`, {})", m.info->label, m.key,
                           m.lower_is_better ? "lower is better" : "higher is better");
  }
  const std::string what =
      fmt::format("{} trace{}, {} polic{}, {}. Ranking metrics: {}.", track.traces.size(),
                  track.traces.size() == 1 ? "" : "s", track.policies.size(),
                  track.policies.size() == 1 ? "y" : "ies", replicates_sentence(track), metrics);
  page.paragraph(suite.has_tracks ? what : fmt::format("Suite `{}`: {}", suite.source, what));
  if (!suite.has_tracks) page.paragraph(kValuesSentence);
  if (const std::string note = replicate_count_note(track.seeds.size()); !note.empty())
    page.paragraph(note);

  // Overall.
  page.heading(level, "Overall");
  page.paragraph(
      "In each replicate, each policy's rank among the policies on every trace (ties share the "
      "mean of their ranks), averaged over the traces per metric; the score averages those over "
      "the metrics. Lower is better.");
  const Ranking& score = board.overall.back();
  const ColumnFormat ranks;
  PageTable overall;
  overall.header = {"rank", "policy", "score"};
  overall.right_aligned = {true, false, true};
  overall.link_column = 1;
  for (const auto& m : track.metrics) {
    overall.header.push_back(std::string(m.info->label) + " (mean rank)");
    overall.right_aligned.push_back(true);
  }
  for (const auto& s : score.standings) {
    std::vector<std::string> row = {std::to_string(s.rank), track.policies[s.policy],
                                    standing_text(ranks, s)};
    for (std::size_t m = 0; m + 1 < board.overall.size(); ++m)
      row.push_back(standing_text(ranks, standing_of(board.overall[m], s.policy)));
    overall.rows.push_back(std::move(row));
    overall.links.push_back(card_link(track, cards_href, s.policy));
  }
  page.table(std::move(overall));
  page.figure(
      "overall score per policy (mean rank, lower is better) with its 95% confidence "
      "interval",
      track_score_chart(track, board));
  if (track.seeds.size() >= 2) {
    page.paragraph(
        "Significant differences in score, paired over the replicates (95%): \">\" the row's "
        "policy is better than the column's, \"<\" worse, \"·\" not significant.");
    PageTable pairs;
    pairs.header = {""};
    for (const auto& s : score.standings) pairs.header.push_back(track.policies[s.policy]);
    for (const auto& a : score.standings) {
      std::vector<std::string> row = {track.policies[a.policy]};
      for (const auto& b : score.standings) {
        const int better = score.better[a.policy][b.policy];
        row.emplace_back(a.policy == b.policy ? "" : better > 0 ? ">" : better < 0 ? "<" : "·");
      }
      pairs.rows.push_back(std::move(row));
    }
    page.table(std::move(pairs));
  }

  // Winners per metric and scope.
  page.heading(level, "Winners");
  page.paragraph(
      "The rank-1 policy per metric: \"A = B\" tie; \"A ≈ B\" A leads, but not significantly "
      "over B.");
  PageTable winners;
  winners.header = {"metric"};
  for (const auto& t : track.traces) winners.header.push_back(t.name);
  winners.header.emplace_back("overall");
  for (std::size_t m = 0; m < track.metrics.size(); ++m) {
    std::vector<std::string> row = {metric_name(track.metrics[m])};
    for (std::size_t t = 0; t < track.traces.size(); ++t)
      row.push_back(winner_text(track, board.per_trace[t * track.metrics.size() + m]));
    row.push_back(winner_text(track, board.overall[m]));
    winners.rows.push_back(std::move(row));
  }
  page.table(std::move(winners));

  // Per trace.
  for (std::size_t t = 0; t < track.traces.size(); ++t) {
    page.heading(level, "Trace " + track.traces[t].name);
    page.paragraph(fmt::format("`{}`; policies in the order of their {}.", track.traces[t].shown,
                               track.metrics.front().info->label));
    const std::size_t first = t * track.metrics.size();
    std::vector<ColumnFormat> formats;
    PageTable table;
    table.header = {"policy"};
    table.right_aligned = {false};
    for (std::size_t m = 0; m < track.metrics.size(); ++m) {
      std::vector<double> means;
      for (const auto& s : board.per_trace[first + m].standings) means.push_back(s.value.mean);
      formats.push_back(column_format(&track.metrics[m], means));
      table.header.push_back(column_heading(track.metrics[m], formats.back()));
      table.right_aligned.push_back(true);
    }
    for (const auto& s : board.per_trace[first].standings) {
      std::vector<std::string> row = {track.policies[s.policy]};
      for (std::size_t m = 0; m < track.metrics.size(); ++m)
        row.push_back(standing_text(formats[m], standing_of(board.per_trace[first + m], s.policy)));
      table.rows.push_back(std::move(row));
      table.links.push_back(card_link(track, cards_href, s.policy));
    }
    page.table(std::move(table));
  }
}

Page board_page(const LeaderboardSuite& suite, const std::vector<Leaderboard>& boards,
                const std::string& cards_href) {
  Page page;
  page.title = "Leaderboard: " + suite.name;
  page.heading(1, page.title);
  if (!suite.description.empty()) page.paragraph(suite.description);
  if (!suite.has_tracks) {
    track_sections(page, suite, suite.tracks.front(), boards.front(), 2, cards_href);
    return page;
  }
  std::string names;
  for (const auto& track : suite.tracks) {
    if (!names.empty()) names += ", ";
    names += track.name;
  }
  page.paragraph(fmt::format("Suite `{}`: {} track{} ({}), each ranked on its own.", suite.source,
                             suite.tracks.size(), suite.tracks.size() == 1 ? "" : "s", names));
  page.paragraph(kValuesSentence);
  for (std::size_t k = 0; k < suite.tracks.size(); ++k) {
    page.heading(2, "Track " + suite.tracks[k].name);
    if (!suite.tracks[k].description.empty()) page.paragraph(suite.tracks[k].description);
    track_sections(page, suite, suite.tracks[k], boards[k], 3, cards_href);
  }
  return page;
}

void append_number(std::string& out, double value, bool present = true) {
  out += ',';
  if (present) out += format_number(round_to(value, kCsvDecimals));
}

std::string board_csv(const LeaderboardSuite& suite, const std::vector<Leaderboard>& boards) {
  const std::vector<LeaderboardClass> classes = leaderboard_classes();
  std::string out = suite.has_tracks ? "track," : "";
  out +=
      "scope,metric,direction,rank,policy,n,mean,ci95,diff_vs_best,diff_vs_best_ci95,"
      "significant_vs_best,diff_vs_above,diff_vs_above_ci95,significant_vs_above";
  for (const auto& c : classes) out += ',' + csv_field(c.column);
  out += '\n';
  for (std::size_t k = 0; k < suite.tracks.size(); ++k) {
    const LeaderboardTrack& track = suite.tracks[k];
    const Leaderboard& board = boards[k];
    // `class_means`: the ranking's values per policy and class (null for overall rankings).
    auto rows = [&](const Ranking& ranking,
                    const std::vector<std::vector<std::optional<double>>>* class_means) {
      for (std::size_t i = 0; i < ranking.standings.size(); ++i) {
        const Standing& s = ranking.standings[i];
        const bool ci = s.value.n >= 2;
        if (suite.has_tracks) out += csv_field(track.name) + ',';
        out += csv_field(ranking.scope) + ',' + csv_field(ranking.metric) + ',' +
               (ranking.lower_is_better ? "lower" : "higher") + ',' + std::to_string(s.rank) + ',' +
               csv_field(track.policies[s.policy]) + ',' + std::to_string(s.value.n);
        append_number(out, s.value.mean);
        append_number(out, s.value.ci95, ci);
        append_number(out, s.vs_best.mean);
        append_number(out, s.vs_best.ci95, ci);
        out += ',';
        if (s.tested) out += s.significant_vs_best ? "yes" : "no";
        append_number(out, s.vs_above.mean, i > 0);
        append_number(out, s.vs_above.ci95, i > 0 && ci);
        out += ',';
        if (i > 0 && s.tested) out += s.significant_vs_above ? "yes" : "no";
        for (std::size_t c = 0; c < classes.size(); ++c) {
          const std::optional<double> value =
              class_means != nullptr ? (*class_means)[s.policy][c] : std::nullopt;
          append_number(out, value.value_or(0.0), value.has_value());
        }
        out += '\n';
      }
    };
    for (std::size_t r = 0; r < board.per_trace.size(); ++r)
      rows(board.per_trace[r], &board.class_means[r]);
    for (const auto& ranking : board.overall) rows(ranking, nullptr);
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> leaderboard_files(
    const LeaderboardSuite& suite, const std::vector<Leaderboard>& boards,
    const std::string& cards_href) {
  SCHEDLAB_ASSERT(boards.size() == suite.tracks.size(), "one board per track");
  const Page page = board_page(suite, boards, cards_href);
  return {{"leaderboard.md", render_markdown(page)},
          {"leaderboard.csv", board_csv(suite, boards)},
          {"leaderboard.html", render_html(page)}};
}

}  // namespace schedlab
