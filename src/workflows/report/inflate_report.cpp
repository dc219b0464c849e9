#include "schedlab/inflate_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "schedlab/output.hpp"
#include "schedlab/report_svg.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/text_page.hpp"

namespace schedlab {

namespace {

double gpus(double milli) {
  return milli / kMilliPerGpu;
}

double unallocated_gpus(const InflateResult& result, const InflatePoint& point) {
  return gpus(static_cast<double>(result.gpus * kMilliPerGpu - point.allocated_milli));
}

// Replicates of one placement, in seed order.
std::vector<const InflateReplicate*> replicates_of(const InflateResult& result,
                                                   SharedPlacementKind placement) {
  std::vector<const InflateReplicate*> out;
  for (const auto& r : result.replicates)
    if (r.placement == placement) out.push_back(&r);
  return out;
}

template <typename Value>
MeanCi over_seeds(const InflateResult& result, SharedPlacementKind placement, int percent,
                  Value value) {
  std::vector<double> sample;
  for (const auto* r : replicates_of(result, placement))
    sample.push_back(value(point_at(*r, percent)));
  return mean_ci95(sample);
}

int last_percent(const InflateResult& result) {
  return static_cast<int>(result.replicates.front().points.size()) - 1;
}

std::string mean_text(const MeanCi& m, int decimals) {
  std::string text = fixed(m.mean, decimals);
  if (m.n >= 2) text += " ± " + fixed(m.ci95, decimals);
  return text;
}

PageTable standings_table(const InflateResult& result) {
  const double capacity = static_cast<double>(result.gpus);
  const int end = last_percent(result);
  PageTable table;
  table.header = {"rank",
                  "placement",
                  "unallocated GPUs at 100%",
                  "min–max",
                  "unallocated %",
                  "fragmentation %",
                  "GPUs partly used",
                  "pods unplaced",
                  fmt::format("allocated % at {}%", end)};
  table.right_aligned = {true, false, true, true, true, true, true, true, true};
  for (const auto& s : inflate_standings(result)) {
    const MeanCi& unallocated = s.unallocated_gpus;
    const auto at = [&](int percent, auto value) {
      return over_seeds(result, s.placement, percent, value);
    };
    const MeanCi fragmentation = at(
        100, [&](const InflatePoint& p) { return 100.0 * gpus(p.fragmentation_milli) / capacity; });
    const MeanCi partly =
        at(100, [](const InflatePoint& p) { return static_cast<double>(p.gpus_partly_used); });
    const MeanCi unplaced =
        at(100, [](const InflatePoint& p) { return static_cast<double>(p.tasks_unplaced); });
    const MeanCi allocated_end = at(end, [&](const InflatePoint& p) {
      return 100.0 * gpus(static_cast<double>(p.allocated_milli)) / capacity;
    });
    table.rows.push_back(
        {std::to_string(s.rank), std::string(shared_placement_name(s.placement)),
         mean_text(unallocated, 1), fixed(unallocated.min, 1) + "–" + fixed(unallocated.max, 1),
         fixed(100.0 * unallocated.mean / capacity, 2), fixed(fragmentation.mean, 2),
         fixed(partly.mean, 1), fixed(unplaced.mean, 1), fixed(allocated_end.mean, 2)});
  }
  return table;
}

PageTable curve_table(const InflateResult& result) {
  const int end = last_percent(result);
  std::vector<int> percents;
  for (int p = 50; p <= end; p += 10) percents.push_back(p);
  if (percents.empty() || percents.back() != end) percents.push_back(end);
  PageTable table;
  table.header = {"placement"};
  table.right_aligned = {false};
  for (const int p : percents) {
    table.header.push_back(fmt::format("{}%", p));
    table.right_aligned.push_back(true);
  }
  for (const auto& s : inflate_standings(result)) {
    std::vector<std::string> row{shared_placement_name(s.placement)};
    for (const int p : percents)
      row.push_back(fixed(
          over_seeds(result, s.placement, p,
                     [&](const InflatePoint& point) { return unallocated_gpus(result, point); })
              .mean,
          1));
    table.rows.push_back(std::move(row));
  }
  return table;
}

// Mean over seeds against arrived workload, with the seeds' min-max as the band.
template <typename Value>
std::string curve_chart(const InflateResult& result, int first_percent, const std::string& title,
                        const std::string& y_label, Value value) {
  report::LineChart chart;
  chart.title = title;
  chart.x.label = "arrived workload (% of GPU capacity)";
  chart.x.include_zero = first_percent == 0;
  chart.y.label = y_label;
  std::size_t color = 0;
  for (const auto placement : result.options.placements) {
    report::LineSeries series;
    series.label = shared_placement_name(placement);
    series.color = report::palette_color(color++);
    for (int p = first_percent; p <= last_percent(result); ++p) {
      const MeanCi m = over_seeds(result, placement, p, value);
      series.points.push_back({static_cast<double>(p), m.mean});
      series.band.emplace_back(m.min, m.max);
    }
    chart.series.push_back(std::move(series));
  }
  return report::render_line_chart(chart);
}

Page inflate_page(const InflateResult& result) {
  const double capacity = static_cast<double>(result.gpus);
  Page page;
  page.title = "Workload inflation: GPU-sharing placements";
  page.heading(1, page.title);
  std::string seeds;
  for (const auto seed : result.options.seeds)
    seeds += (seeds.empty() ? "" : ", ") + std::to_string(seed);
  page.paragraph(fmt::format(
      "Nodes `{}` ({} nodes, {} GPUs); pods `{}` ({} pods, task mix of {} classes covering "
      "{:.1f}% of them). Pods drawn from the list arrive until they ask for {}% of the GPUs and "
      "never leave; a pod that fits no node is dropped. Seeds {}.",
      result.nodes_source, result.nodes, result.gpus, result.tasks_source, result.pods,
      result.task_classes, 100.0 * result.task_mix_coverage,
      fixed(100.0 * result.options.inflation, 0), seeds));
  page.heading(2, "Standings at 100% arrived workload");
  page.paragraph(fmt::format(
      "Unallocated GPUs = {} GPUs less the GPU share allocated, when the pods that arrived ask "
      "for as many GPUs as the cluster has; mean ± 95% CI over {} seeds. Fragmentation: the "
      "expected GPU capacity the task mix cannot use (Weng et al., ATC 2023), in % of the GPUs.",
      result.gpus, result.options.seeds.size()));
  if (const std::string note = replicate_count_note(result.options.seeds.size()); !note.empty())
    page.paragraph(note);
  page.table(standings_table(result));
  page.heading(2, "Unallocated GPUs against arrived workload (mean over seeds)");
  page.table(curve_table(result));
  page.figure(
      "unallocated GPUs (% of capacity) against arrived workload from 80% on; bands span "
      "the seeds",
      curve_chart(
          result, 80, "Unallocated GPUs", "unallocated GPUs (% of capacity)",
          [&](const InflatePoint& p) { return 100.0 * unallocated_gpus(result, p) / capacity; }));
  page.figure("fragmentation (% of capacity) against arrived workload; bands span the seeds",
              curve_chart(result, 0, "Fragmentation", "fragmentation (% of GPU capacity)",
                          [&](const InflatePoint& p) {
                            return 100.0 * gpus(p.fragmentation_milli) / capacity;
                          }));
  return page;
}

}  // namespace

std::vector<InflateStanding> inflate_standings(const InflateResult& result) {
  std::vector<InflateStanding> standings;
  for (const auto placement : result.options.placements) {
    InflateStanding s;
    s.placement = placement;
    for (const auto* r : replicates_of(result, placement))
      s.unallocated_gpus_at_100.push_back(unallocated_gpus(result, point_at(*r, 100)));
    s.unallocated_gpus = mean_ci95(s.unallocated_gpus_at_100);
    standings.push_back(std::move(s));
  }
  const auto mean = [](const InflateStanding& s) { return s.unallocated_gpus.mean; };
  std::stable_sort(
      standings.begin(), standings.end(),
      [&](const InflateStanding& a, const InflateStanding& b) { return mean(a) < mean(b); });
  for (std::size_t i = 0; i < standings.size(); ++i)
    standings[i].rank = i > 0 && mean(standings[i]) == mean(standings[i - 1])
                            ? standings[i - 1].rank
                            : static_cast<int>(i) + 1;
  return standings;
}

std::string inflate_csv(const InflateResult& result) {
  const double capacity = static_cast<double>(result.gpus);
  std::string out =
      "placement,seed,arrived_percent,arrived_gpus,allocated_gpus,unallocated_gpus,"
      "allocated_share,fragmentation_gpus,fragmentation_share,gpus_idle,gpus_partly_used,"
      "tasks_arrived,tasks_unplaced\n";
  for (const auto& r : result.replicates)
    for (const auto& p : r.points) {
      const double allocated = gpus(static_cast<double>(p.allocated_milli));
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                         shared_placement_name(r.placement), r.seed, p.arrived_percent,
                         fixed(gpus(static_cast<double>(p.arrived_milli)), 3), fixed(allocated, 3),
                         fixed(unallocated_gpus(result, p), 3), fixed(allocated / capacity, 6),
                         fixed(gpus(p.fragmentation_milli), 3),
                         fixed(gpus(p.fragmentation_milli) / capacity, 6), p.gpus_idle,
                         p.gpus_partly_used, p.tasks_arrived, p.tasks_unplaced);
    }
  return out;
}

std::vector<std::pair<std::string, std::string>> inflate_outputs(const InflateResult& result) {
  const Page page = inflate_page(result);
  return {{"inflate.csv", inflate_csv(result)},
          {"inflate.md", render_markdown(page)},
          {"inflate.html", render_html(page)}};
}

}  // namespace schedlab
