#include "report_classes.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "schedlab/error.hpp"
#include "schedlab/metric_catalog.hpp"
#include "schedlab/report_svg.hpp"
#include "schedlab/summary_fields.hpp"

namespace schedlab::report {

const char* const kClassStyle =
    R"CSS(table.verdict,table.classes{border-collapse:collapse;font-size:12px;margin:0 0 10px}
table.verdict th,table.verdict td,table.classes th,table.classes td{border:1px solid #e3e3e3;padding:3px 8px;text-align:right}
table.verdict td:first-child,table.classes td:first-child,table.classes td:nth-child(2){text-align:left}
table.verdict td.pays{background:#f6cfca;color:#8f1d12} table.verdict td.gains{background:#d2ead3;color:#1f5e24}
table.verdict td.none{color:#999}
)CSS";

namespace {

using Json = nlohmann::ordered_json;

// The jobs of a run as job_class_json reads them; `known_work_only` leaves out the jobs whose
// work is unknown (for the work classes).
std::vector<ClassedJob> classed(const std::vector<ReportJob>& jobs, bool known_work_only) {
  std::vector<ClassedJob> out;
  out.reserve(jobs.size());
  for (const ReportJob& j : jobs) {
    if (known_work_only && !j.work_ms) continue;
    out.push_back({j.gpus, j.work_ms.value_or(0), j.tenant, j.user, j.wait_s, j.queued_s, j.jct_s,
                   j.bounded_slowdown});
  }
  return out;
}

// Every class of `kind` of one run, {label: row}; kind nullopt: the one class of all jobs.
Json classes_of(const std::vector<ReportJob>& jobs, std::optional<JobClassKind> kind,
                const JobClassBounds& bounds) {
  if (!kind) {
    // One size class with no upper bound ("1+") holds every job.
    JobClassBounds all;
    all.size_upper.clear();
    const Json rows = job_class_json(classed(jobs, false), JobClassKind::kSize, all);
    return Json{{"all", rows.front()}};
  }
  return job_class_json(classed(jobs, *kind == JobClassKind::kDuration), *kind, bounds);
}

// Labels of the classes that hold jobs in some run, in class order.
std::vector<std::string> held_labels(const std::vector<Json>& per_run) {
  std::vector<std::string> labels;
  for (const Json& classes : per_run)
    for (const auto& [label, row] : classes.items())
      if (row.value("jobs", 0) > 0 &&
          std::find(labels.begin(), labels.end(), label) == labels.end())
        labels.push_back(label);
  // Runs list the classes in one order; a class held only in a later run is placed by it.
  std::vector<std::string> ordered;
  for (const Json& classes : per_run)
    for (const auto& [label, row] : classes.items())
      if (std::find(labels.begin(), labels.end(), label) != labels.end() &&
          std::find(ordered.begin(), ordered.end(), label) == ordered.end())
        ordered.push_back(label);
  return ordered;
}

std::optional<double> value_in(const Json& classes, const std::string& label,
                               std::string_view metric) {
  if (!classes.contains(label)) return std::nullopt;
  return job_class_value(classes[label], metric);
}

struct Cell {
  std::string text;
  std::string css;
};

Cell verdict_cell(std::optional<double> reference, std::optional<double> value,
                  double threshold_pct) {
  if (!reference || !value) return {"-", "none"};
  if (*reference == 0) return *value == 0 ? Cell{"+0.0%", "same"} : Cell{"from 0", "pays"};
  const double change_pct = 100.0 * (*value - *reference) / *reference;
  const std::string css = change_pct > threshold_pct    ? "pays"
                          : change_pct < -threshold_pct ? "gains"
                                                        : "same";
  return {fmt::format("{:+.1f}%", change_pct), css};
}

const char* kind_heading(JobClassKind kind) {
  switch (kind) {
    case JobClassKind::kSize: return "GPUs";
    case JobClassKind::kDuration: return "work (trace duration)";
    case JobClassKind::kTenant: return "tenant";
    case JobClassKind::kUser: return "user";
  }
  return "?";
}

}  // namespace

std::size_t resolve_work(std::vector<ClassRun>& runs) {
  std::unordered_map<std::string, TimeMs> work;
  for (const ClassRun& run : runs)
    if (run.jobs)
      for (const ReportJob& job : *run.jobs)
        if (job.work_ms) work.emplace(job.id, *job.work_ms);
  std::size_t unknown = 0;
  std::unordered_map<std::string, bool> counted;
  for (ClassRun& run : runs) {
    if (!run.jobs) continue;
    for (ReportJob& job : *run.jobs) {
      if (job.work_ms) continue;
      const auto it = work.find(job.id);
      if (it != work.end()) {
        job.work_ms = it->second;
      } else if (counted.emplace(job.id, true).second) {
        ++unknown;
      }
    }
  }
  return unknown;
}

std::size_t reference_run(const std::vector<ClassRun>& runs,
                          const std::optional<std::string>& name) {
  SCHEDLAB_ASSERT(!runs.empty(), "a reference among runs");
  const std::string wanted = name.value_or("fifo");
  for (std::size_t i = 0; name && i < runs.size(); ++i)
    if (runs[i].label == wanted) return i;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (runs[i].policy == wanted) return i;
  if (!name) return 0;
  std::string labels;
  for (const ClassRun& run : runs) labels += (labels.empty() ? "" : ", ") + run.label;
  throw ConfigError(
      fmt::format("--reference {}: no run of that name or policy (runs: {})", wanted, labels));
}

void check_verdict_options(const VerdictSettings& options) {
  const auto& keys = job_class_metric_keys();
  if (std::find(keys.begin(), keys.end(), options.metric) == keys.end())
    throw ConfigError(fmt::format("--verdict-metric {}: expected one of {}", options.metric,
                                  fmt::join(keys, ", ")));
  if (!(options.threshold_pct >= 0) || !std::isfinite(options.threshold_pct))
    throw ConfigError(fmt::format("--verdict-threshold {}: expected a percentage >= 0",
                                  format_number(options.threshold_pct)));
}

std::string verdict_table(const std::vector<ClassRun>& runs, std::size_t reference,
                          const VerdictSettings& options) {
  const ClassRun& ref = runs.at(reference);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (i != reference && runs[i].jobs) rows.push_back(i);
  if (!ref.jobs || rows.empty()) return "";
  struct Column {
    std::optional<JobClassKind> kind;
    std::vector<std::string> labels;
    std::vector<Json> per_run;  // indexed like runs (empty object without jobs)
  };
  std::vector<Column> columns(3);
  columns[1].kind = JobClassKind::kSize;
  columns[2].kind = JobClassKind::kDuration;
  for (Column& column : columns) {
    for (const ClassRun& run : runs)
      column.per_run.push_back(run.jobs ? classes_of(*run.jobs, column.kind, options.bounds)
                                        : Json::object());
    column.labels = column.kind ? held_labels(column.per_run) : std::vector<std::string>{"all"};
  }
  std::string out = "<table class=\"verdict\"><thead><tr><th rowspan=\"2\">policy</th>";
  for (const Column& column : columns)
    if (!column.labels.empty())
      out += column.kind ? fmt::format("<th colspan=\"{}\">{}</th>", column.labels.size(),
                                       kind_heading(*column.kind))
                         : "<th rowspan=\"2\">all jobs</th>";
  out += "</tr><tr>";
  for (const Column& column : columns)
    if (column.kind)
      for (const auto& label : column.labels)
        out += fmt::format("<th>{}</th>", markup_escape(label));
  out += "</tr></thead><tbody>\n";
  const MetricInfo& metric = catalog_metric(options.metric);
  for (const std::size_t i : rows) {
    out += fmt::format("<tr><td>{}</td>", markup_escape(runs[i].label));
    for (const Column& column : columns)
      for (const auto& label : column.labels) {
        const auto before = value_in(column.per_run[reference], label, options.metric);
        const auto after = value_in(column.per_run[i], label, options.metric);
        const Cell cell = verdict_cell(before, after, options.threshold_pct);
        const std::string tip =
            before && after
                ? fmt::format("{} {}: {} against {}", label, options.metric,
                              metric_value_text(metric, *after), metric_value_text(metric, *before))
                : label + ": no finished job in one of the runs";
        out += fmt::format("<td class=\"{}\" title=\"{}\">{}</td>", cell.css, markup_escape(tip),
                           markup_escape(cell.text));
      }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string class_tables(const std::vector<ClassRun>& runs, const JobClassBounds& bounds) {
  std::vector<const ClassRun*> shown;
  for (const ClassRun& run : runs)
    if (run.jobs) shown.push_back(&run);
  if (shown.empty()) return "";
  bool any_tenant = false, any_user = false;
  for (const ClassRun* run : shown)
    for (const ReportJob& job : *run->jobs) {
      any_tenant = any_tenant || !job.tenant.empty();
      any_user = any_user || !job.user.empty();
    }
  std::vector<JobClassKind> kinds = {JobClassKind::kSize, JobClassKind::kDuration};
  if (any_tenant) kinds.push_back(JobClassKind::kTenant);
  if (any_user) kinds.push_back(JobClassKind::kUser);
  std::string out;
  for (const JobClassKind kind : kinds) {
    std::vector<Json> per_run;
    per_run.reserve(shown.size());
    for (const ClassRun* run : shown) per_run.push_back(classes_of(*run->jobs, kind, bounds));
    std::vector<std::string> labels = held_labels(per_run);
    std::string rest;
    const bool named = kind == JobClassKind::kTenant || kind == JobClassKind::kUser;
    if (named && labels.size() > kMaxNamedClasses) {
      std::map<std::string, std::int64_t> jobs;
      for (const Json& classes : per_run)
        for (const auto& [label, row] : classes.items())
          jobs[label] = std::max<std::int64_t>(jobs[label], row.value("jobs", 0));
      std::vector<std::string> ranked = labels;
      std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
        return jobs[a] != jobs[b] ? jobs[a] > jobs[b] : a < b;
      });
      std::int64_t left_out = 0;
      for (std::size_t k = kMaxNamedClasses; k < ranked.size(); ++k) left_out += jobs[ranked[k]];
      rest =
          fmt::format("<p class=\"caption\">{} more {}s with {} jobs in all are not shown.</p>\n",
                      ranked.size() - kMaxNamedClasses, job_class_kind_name(kind), left_out);
      ranked.resize(kMaxNamedClasses);
      std::erase_if(labels, [&](const std::string& label) {
        return std::find(ranked.begin(), ranked.end(), label) == ranked.end();
      });
    }
    out += fmt::format(
        "<h3>By {}</h3>\n<table class=\"classes\"><thead><tr><th>{}</th><th>policy"
        "</th><th>jobs</th>",
        kind_heading(kind), job_class_kind_name(kind));
    for (const std::string_view key : job_class_metric_keys())
      out += fmt::format("<th>{}</th>", markup_escape(std::string(catalog_metric(key).label)));
    out += "</tr></thead><tbody>\n";
    for (const auto& label : labels)
      for (std::size_t r = 0; r < shown.size(); ++r) {
        const Json row = per_run[r].contains(label) ? per_run[r][label] : Json::object();
        out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td>", markup_escape(label),
                           markup_escape(shown[r]->label), row.value("jobs", 0));
        for (const std::string_view key : job_class_metric_keys()) {
          const auto value = job_class_value(row, key);
          out += fmt::format(
              "<td>{}</td>",
              value ? markup_escape(metric_value_text(catalog_metric(key), *value)) : "-");
        }
        out += "</tr>\n";
      }
    out += "</tbody></table>\n" + rest;
  }
  return out;
}

}  // namespace schedlab::report
