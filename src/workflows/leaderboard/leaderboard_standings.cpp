// Leaderboard standings: ranks, confidence intervals and paired significance per trace and
// metric, and the overall mean ranks (the rules are in leaderboard.hpp and docs/leaderboard.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedlab/error.hpp"
#include "schedlab/job_classes.hpp"
#include "schedlab/leaderboard.hpp"
#include "schedlab/output.hpp"
#include "schedlab/summary_fields.hpp"

namespace schedlab {

using Json = nlohmann::ordered_json;

namespace {

// Means are compared as the outputs print them, so a tie shows as a tie.
constexpr int kCompareDecimals = 6;

double comparable(double value) {
  return round_to(value, kCompareDecimals);
}

// Indices of `values` best first; equal values keep their index order.
std::vector<std::size_t> best_first(const std::vector<double>& values, bool lower_is_better) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double x = comparable(values[a]);
    const double y = comparable(values[b]);
    return lower_is_better ? x < y : x > y;
  });
  return order;
}

MeanCi paired(const std::vector<double>& a, const std::vector<double>& b) {
  SCHEDLAB_ASSERT(a.size() == b.size(), "paired samples have the same replicates");
  std::vector<double> difference(a.size());
  for (std::size_t r = 0; r < a.size(); ++r) difference[r] = a[r] - b[r];
  return mean_ci95(difference);
}

}  // namespace

bool significant_difference(const MeanCi& paired_difference) {
  if (paired_difference.n < 2) return false;
  return std::abs(comparable(paired_difference.mean)) > comparable(paired_difference.ci95);
}

std::vector<double> tie_averaged_ranks(const std::vector<double>& values, bool lower_is_better) {
  const std::vector<std::size_t> order = best_first(values, lower_is_better);
  std::vector<double> ranks(values.size());
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start + 1;
    while (end < order.size() && comparable(values[order[end]]) == comparable(values[order[start]]))
      ++end;
    // Positions start..end-1 share the mean of ranks start+1..end.
    const double shared = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    for (std::size_t k = start; k < end; ++k) ranks[order[k]] = shared;
    start = end;
  }
  return ranks;
}

Ranking rank_policies(const std::vector<std::vector<double>>& samples, bool lower_is_better) {
  SCHEDLAB_ASSERT(!samples.empty(), "a ranking has policies");
  const std::size_t replicates = samples.front().size();
  std::vector<double> means;
  for (const auto& sample : samples) {
    SCHEDLAB_ASSERT(sample.size() == replicates, "every policy has the same replicates");
    means.push_back(mean_ci95(sample).mean);
  }
  Ranking ranking;
  ranking.lower_is_better = lower_is_better;
  const std::vector<std::size_t> order = best_first(means, lower_is_better);
  const std::size_t best = order.front();
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t p = order[k];
    Standing s;
    s.policy = p;
    s.rank = k > 0 && comparable(means[p]) == comparable(means[order[k - 1]])
                 ? ranking.standings.back().rank
                 : k + 1;
    s.value = mean_ci95(samples[p]);
    s.tested = replicates >= 2;
    s.vs_best = paired(samples[p], samples[best]);
    s.significant_vs_best = significant_difference(s.vs_best);
    if (k > 0) {
      s.vs_above = paired(samples[p], samples[order[k - 1]]);
      s.significant_vs_above = significant_difference(s.vs_above);
    }
    ranking.standings.push_back(s);
  }
  // Every pair, in policy order: +1 when the row policy is significantly better.
  ranking.better.assign(samples.size(), std::vector<int>(samples.size(), 0));
  for (std::size_t a = 0; a < samples.size(); ++a)
    for (std::size_t b = 0; b < samples.size(); ++b) {
      if (a == b) continue;
      const MeanCi d = paired(samples[a], samples[b]);
      if (!significant_difference(d)) continue;
      const bool a_lower = d.mean < 0;
      ranking.better[a][b] = a_lower == lower_is_better ? 1 : -1;
    }
  return ranking;
}

std::vector<LeaderboardClass> leaderboard_classes() {
  const JobClassBounds bounds;
  std::vector<LeaderboardClass> classes;
  for (const JobClassKind kind : leaderboard_class_kinds())
    for (auto& label : job_class_labels(kind, bounds)) {
      std::string column = std::string(job_class_kind_name(kind)) + "=" + label;
      classes.push_back({kind, std::move(label), std::move(column)});
    }
  return classes;
}

std::vector<JobClassKind> leaderboard_class_kinds() {
  return {JobClassKind::kSize, JobClassKind::kDuration};
}

Leaderboard compute_leaderboard(const LeaderboardSuite& suite, std::size_t track_index,
                                const std::vector<std::vector<Json>>& rows) {
  const LeaderboardTrack& track = suite.tracks.at(track_index);
  SCHEDLAB_ASSERT(rows.size() == track.traces.size(), "one results table per trace");
  const std::size_t policies = track.policies.size();
  const std::size_t replicates = track.seeds.size();
  const std::size_t metrics = track.metrics.size();
  const std::vector<LeaderboardClass> classes = leaderboard_classes();
  // class_sums[trace][metric][policy][class]: sum and count over the replicates with a value.
  std::vector<std::vector<std::vector<std::vector<std::pair<double, std::size_t>>>>> class_sums(
      track.traces.size(),
      std::vector<std::vector<std::vector<std::pair<double, std::size_t>>>>(
          metrics, std::vector<std::vector<std::pair<double, std::size_t>>>(
                       policies, std::vector<std::pair<double, std::size_t>>(classes.size()))));
  // values[trace][metric][policy][replicate]
  std::vector<std::vector<std::vector<std::vector<double>>>> values(
      track.traces.size(),
      std::vector<std::vector<std::vector<double>>>(
          metrics, std::vector<std::vector<double>>(policies, std::vector<double>(replicates))));
  for (std::size_t t = 0; t < track.traces.size(); ++t) {
    std::map<std::pair<std::string, std::uint64_t>, const Json*> cells;
    for (const auto& row : rows[t])
      cells[{row.at("variant").get<std::string>(), row.at("seed").get<std::uint64_t>()}] = &row;
    for (std::size_t p = 0; p < policies; ++p)
      for (std::size_t r = 0; r < replicates; ++r) {
        const auto it = cells.find({track.policies[p], track.seeds[r]});
        const std::string where =
            fmt::format("trace {}: policy {}, seed {}", track.traces[t].sweep_dir,
                        track.policies[p], track.seeds[r]);
        if (it == cells.end())
          throw ConfigError(fmt::format("{}: no results row for {}", suite.source, where));
        const Json& row = *it->second;
        if (row.at("status") != "ok")
          throw ConfigError(fmt::format("{}: the cell of {} failed: {}", suite.source, where,
                                        row.value("error", std::string("?"))));
        for (std::size_t m = 0; m < metrics; ++m) {
          const auto value = numeric_at(row.at("summary"), track.metrics[m].key);
          if (!value)
            throw ConfigError(fmt::format("{}: the summary of {} has no metric {}", suite.source,
                                          where, track.metrics[m].key));
          values[t][m][p][r] = *value;
          for (std::size_t c = 0; c < classes.size(); ++c) {
            const std::string by = std::string("by_") + job_class_kind_name(classes[c].kind);
            const Json& summary = row.at("summary");
            const auto kind = summary.find(by);
            if (kind == summary.end() || !kind->contains(classes[c].label)) continue;
            if (const auto v = numeric_at(kind->at(classes[c].label), track.metrics[m].key)) {
              class_sums[t][m][p][c].first += *v;
              ++class_sums[t][m][p][c].second;
            }
          }
        }
      }
  }

  Leaderboard board;
  for (std::size_t t = 0; t < track.traces.size(); ++t)
    for (std::size_t m = 0; m < metrics; ++m) {
      Ranking ranking = rank_policies(values[t][m], track.metrics[m].lower_is_better);
      ranking.scope = track.traces[t].name;
      ranking.metric = track.metrics[m].key;
      board.per_trace.push_back(std::move(ranking));
      std::vector<std::vector<std::optional<double>>> means(
          policies, std::vector<std::optional<double>>(classes.size()));
      for (std::size_t p = 0; p < policies; ++p)
        for (std::size_t c = 0; c < classes.size(); ++c)
          if (const auto [sum, n] = class_sums[t][m][p][c]; n > 0)
            means[p][c] = sum / static_cast<double>(n);
      board.class_means.push_back(std::move(means));
    }

  // mean_rank[metric][policy][replicate]: the policy's rank, averaged over the traces.
  std::vector<std::vector<std::vector<double>>> mean_rank(
      metrics, std::vector<std::vector<double>>(policies, std::vector<double>(replicates, 0.0)));
  for (std::size_t m = 0; m < metrics; ++m)
    for (std::size_t r = 0; r < replicates; ++r)
      for (std::size_t t = 0; t < track.traces.size(); ++t) {
        std::vector<double> replicate(policies);
        for (std::size_t p = 0; p < policies; ++p) replicate[p] = values[t][m][p][r];
        const std::vector<double> ranks =
            tie_averaged_ranks(replicate, track.metrics[m].lower_is_better);
        for (std::size_t p = 0; p < policies; ++p)
          mean_rank[m][p][r] += ranks[p] / static_cast<double>(track.traces.size());
      }
  std::vector<std::vector<double>> score(policies, std::vector<double>(replicates, 0.0));
  for (std::size_t m = 0; m < metrics; ++m) {
    Ranking ranking = rank_policies(mean_rank[m], true);
    ranking.scope = "overall";
    ranking.metric = track.metrics[m].key;
    board.overall.push_back(std::move(ranking));
    for (std::size_t p = 0; p < policies; ++p)
      for (std::size_t r = 0; r < replicates; ++r)
        score[p][r] += mean_rank[m][p][r] / static_cast<double>(metrics);
  }
  Ranking overall = rank_policies(score, true);
  overall.scope = "overall";
  overall.metric = "score";
  board.overall.push_back(std::move(overall));
  return board;
}

}  // namespace schedlab
