// The leaderboard's outputs: leaderboard.md and leaderboard.html from one page model, and
// leaderboard.csv (one row per scope, metric and policy).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

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

// A value as the board shows it: the metric's decimals, or rank decimals for overall ranks.
std::string value_text(const LeaderboardMetric* metric, double value) {
  return metric != nullptr ? metric_value_text(*metric->info, value) : fixed(value, kRankDecimals);
}

std::string mean_ci_text(const LeaderboardMetric* metric, const MeanCi& value) {
  std::string text = value_text(metric, value.mean);
  if (value.n >= 2) text += " ± " + value_text(metric, value.ci95);
  return text;
}

std::string metric_heading(const LeaderboardMetric& metric) {
  const std::string unit(metric.info->unit);
  return unit.empty() || unit == "ratio" || unit == "count"
             ? std::string(metric.info->label)
             : fmt::format("{} ({})", metric.info->label, unit);
}

// "value ± ci (rank)", with "≈" after the rank when the gap to rank 1 is not significant.
std::string standing_text(const LeaderboardMetric* metric, const Standing& s) {
  std::string text = mean_ci_text(metric, s.value) + fmt::format(" ({}", s.rank);
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
std::string winner_text(const LeaderboardSuite& suite, const Ranking& ranking) {
  const auto& s = ranking.standings;
  std::string text = suite.policies[s.front().policy];
  std::size_t k = 1;
  for (; k < s.size() && s[k].rank == 1; ++k) text += " = " + suite.policies[s[k].policy];
  if (k < s.size() && s[k].tested && !s[k].significant_vs_best)
    text += " ≈ " + suite.policies[s[k].policy];
  return text;
}

std::string replicates_sentence(const LeaderboardSuite& suite) {
  const std::size_t n = suite.seeds.size();
  std::string text =
      fmt::format("{} replicate{} per policy and trace (seed{} {}; workload resampling `{}`)", n,
                  n == 1 ? "" : "s", n == 1 ? "" : "s", seeds_text(suite.seeds), suite.resample);
  return text;
}

// The address of the card of the policy entry `policy` runs, or "" without `cards_href`.
std::string card_link(const LeaderboardSuite& suite, const std::string& cards_href,
                      std::size_t policy) {
  if (cards_href.empty() || suite.traces.empty()) return "";
  const auto& variants = suite.traces.front().sweep.variants;
  SCHEDLAB_ASSERT(policy < variants.size(), "every board entry is a variant of each sweep");
  return cards_href + policy_card_file_name(variants[policy].policy);
}

Page board_page(const LeaderboardSuite& suite, const Leaderboard& board,
                const std::string& cards_href) {
  Page page;
  page.title = "Leaderboard: " + suite.name;
  page.heading(1, page.title);
  if (!suite.description.empty()) page.paragraph(suite.description);
  std::string metrics;
  for (const auto& m : suite.metrics) {
    if (!metrics.empty()) metrics += "; ";
    metrics += fmt::format("{} (`{}`, {})", m.info->label, m.key,
                           m.lower_is_better ? "lower is better" : "higher is better");
  }
  page.paragraph(fmt::format("Suite `{}`: {} trace{}, {} polic{}, {}. Ranking metrics: {}.",
                             suite.source, suite.traces.size(), suite.traces.size() == 1 ? "" : "s",
                             suite.policies.size(), suite.policies.size() == 1 ? "y" : "ies",
                             replicates_sentence(suite), metrics));
  page.paragraph(
      "Values are means over the replicates ± the half-width of their 95% confidence interval "
      "(Student t); the rank follows in parentheses (1 is best, **bold**). \"≈\" marks a policy "
      "whose difference from the rank-1 policy is not significant: the 95% confidence interval "
      "of their paired per-replicate differences contains 0.");
  if (const std::string note = replicate_count_note(suite.seeds.size()); !note.empty())
    page.paragraph(note);

  // Overall.
  page.heading(2, "Overall");
  page.paragraph(
      "In each replicate, each policy's rank among the policies on every trace (ties share the "
      "mean of their ranks), averaged over the traces per metric; the score averages those over "
      "the metrics. Lower is better.");
  const Ranking& score = board.overall.back();
  PageTable overall;
  overall.header = {"rank", "policy", "score"};
  overall.right_aligned = {true, false, true};
  overall.link_column = 1;
  for (const auto& m : suite.metrics) {
    overall.header.push_back(std::string(m.info->label) + " (mean rank)");
    overall.right_aligned.push_back(true);
  }
  for (const auto& s : score.standings) {
    std::vector<std::string> row = {std::to_string(s.rank), suite.policies[s.policy],
                                    standing_text(nullptr, s)};
    for (std::size_t m = 0; m + 1 < board.overall.size(); ++m)
      row.push_back(standing_text(nullptr, standing_of(board.overall[m], s.policy)));
    overall.rows.push_back(std::move(row));
    overall.links.push_back(card_link(suite, cards_href, s.policy));
  }
  page.table(std::move(overall));
  if (suite.seeds.size() >= 2) {
    page.paragraph(
        "Significant differences in score, paired over the replicates (95%): \">\" the row's "
        "policy is better than the column's, \"<\" worse, \"·\" not significant.");
    PageTable pairs;
    pairs.header = {""};
    for (const auto& s : score.standings) pairs.header.push_back(suite.policies[s.policy]);
    for (const auto& a : score.standings) {
      std::vector<std::string> row = {suite.policies[a.policy]};
      for (const auto& b : score.standings) {
        const int better = score.better[a.policy][b.policy];
        row.emplace_back(a.policy == b.policy ? "" : better > 0 ? ">" : better < 0 ? "<" : "·");
      }
      pairs.rows.push_back(std::move(row));
    }
    page.table(std::move(pairs));
  }

  // Winners per metric and scope.
  page.heading(2, "Winners");
  page.paragraph(
      "The rank-1 policy per metric: \"A = B\" tie; \"A ≈ B\" A leads, but not significantly "
      "over B.");
  PageTable winners;
  winners.header = {"metric"};
  for (const auto& t : suite.traces) winners.header.push_back(t.name);
  winners.header.emplace_back("overall");
  for (std::size_t m = 0; m < suite.metrics.size(); ++m) {
    std::vector<std::string> row = {metric_heading(suite.metrics[m])};
    for (std::size_t t = 0; t < suite.traces.size(); ++t)
      row.push_back(winner_text(suite, board.per_trace[t * suite.metrics.size() + m]));
    row.push_back(winner_text(suite, board.overall[m]));
    winners.rows.push_back(std::move(row));
  }
  page.table(std::move(winners));

  // Per trace.
  for (std::size_t t = 0; t < suite.traces.size(); ++t) {
    page.heading(2, "Trace " + suite.traces[t].name);
    page.paragraph(fmt::format("`{}`; policies in the order of their {}.", suite.traces[t].shown,
                               suite.metrics.front().info->label));
    PageTable table;
    table.header = {"policy"};
    table.right_aligned = {false};
    for (const auto& m : suite.metrics) {
      table.header.push_back(metric_heading(m));
      table.right_aligned.push_back(true);
    }
    const std::size_t first = t * suite.metrics.size();
    for (const auto& s : board.per_trace[first].standings) {
      std::vector<std::string> row = {suite.policies[s.policy]};
      for (std::size_t m = 0; m < suite.metrics.size(); ++m)
        row.push_back(
            standing_text(&suite.metrics[m], standing_of(board.per_trace[first + m], s.policy)));
      table.rows.push_back(std::move(row));
      table.links.push_back(card_link(suite, cards_href, s.policy));
    }
    page.table(std::move(table));
  }
  return page;
}

void append_number(std::string& out, double value, bool present = true) {
  out += ',';
  if (present) out += format_number(round_to(value, kCsvDecimals));
}

std::string board_csv(const LeaderboardSuite& suite, const Leaderboard& board) {
  std::string out =
      "scope,metric,direction,rank,policy,n,mean,ci95,diff_vs_best,diff_vs_best_ci95,"
      "significant_vs_best,diff_vs_above,diff_vs_above_ci95,significant_vs_above\n";
  auto rows = [&](const Ranking& ranking) {
    for (std::size_t k = 0; k < ranking.standings.size(); ++k) {
      const Standing& s = ranking.standings[k];
      const bool ci = s.value.n >= 2;
      out += csv_field(ranking.scope) + ',' + csv_field(ranking.metric) + ',' +
             (ranking.lower_is_better ? "lower" : "higher") + ',' + std::to_string(s.rank) + ',' +
             csv_field(suite.policies[s.policy]) + ',' + std::to_string(s.value.n);
      append_number(out, s.value.mean);
      append_number(out, s.value.ci95, ci);
      append_number(out, s.vs_best.mean);
      append_number(out, s.vs_best.ci95, ci);
      out += ',';
      if (s.tested) out += s.significant_vs_best ? "yes" : "no";
      append_number(out, s.vs_above.mean, k > 0);
      append_number(out, s.vs_above.ci95, k > 0 && ci);
      out += ',';
      if (k > 0 && s.tested) out += s.significant_vs_above ? "yes" : "no";
      out += '\n';
    }
  };
  for (const auto& ranking : board.per_trace) rows(ranking);
  for (const auto& ranking : board.overall) rows(ranking);
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> leaderboard_files(const LeaderboardSuite& suite,
                                                                   const Leaderboard& board,
                                                                   const std::string& cards_href) {
  const Page page = board_page(suite, board, cards_href);
  return {{"leaderboard.md", render_markdown(page)},
          {"leaderboard.csv", board_csv(suite, board)},
          {"leaderboard.html", render_html(page)}};
}

}  // namespace schedlab
