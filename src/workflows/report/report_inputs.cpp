#include "report_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/metric_catalog.hpp"
#include "schedlab/output.hpp"
#include "schedlab/trace.hpp"

namespace schedlab::report {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

std::vector<std::string_view> header_row(CsvReader& reader, const std::string& path) {
  std::vector<std::string_view> fields;
  if (!reader.next_row(fields))
    throw ConfigError(fmt::format("{}: empty file (expected a header row)", path));
  return fields;
}

std::size_t require_column(const CsvHeader& header, const char* name, const std::string& path) {
  const auto index = header.find(name);
  if (!index) throw ConfigError(fmt::format("{}:1: missing column '{}'", path, name));
  return *index;
}

double field_number(const std::vector<std::string_view>& fields, std::size_t index,
                    const char* column, const CsvReader& reader) {
  const auto value = index < fields.size() ? parse_double(fields[index]) : std::nullopt;
  if (!value || !std::isfinite(*value))
    throw ConfigError(fmt::format("{}:{}: column '{}': expected a number, got '{}'", reader.file(),
                                  reader.line(), column,
                                  index < fields.size() ? std::string(fields[index]) : ""));
  return *value;
}

// The rows of timeseries.csv into run.series, and its per-tenant columns (gpus.<tenant>, with
// tenants; docs/tenants.md) into run.tenant_names / run.tenant_gpus.
void read_timeseries(const std::string& path, RunData& run) {
  const std::string text = read_file_bytes(path);
  CsvReader reader(text, path);
  const auto header_names = header_row(reader, path);
  const CsvHeader header(header_names, path, reader.line());
  const std::size_t t = require_column(header, "time_s", path);
  const std::size_t busy = require_column(header, "busy_gpus", path);
  const std::size_t idle = require_column(header, "idle_gpus", path);
  const std::size_t queued = require_column(header, "queued_jobs", path);
  std::vector<std::size_t> tenant_columns;
  for (std::size_t c = 0; c < header.names().size(); ++c) {
    const std::string& name = header.names()[c];
    if (!name.starts_with("gpus.") || name.size() == 5) continue;
    tenant_columns.push_back(c);
    run.tenant_names.push_back(name.substr(5));
  }
  run.tenant_gpus.assign(tenant_columns.size(), {});
  std::vector<std::string_view> fields;
  while (reader.next_row(fields)) {
    run.series.push_back({field_number(fields, t, "time_s", reader),
                          field_number(fields, busy, "busy_gpus", reader),
                          field_number(fields, idle, "idle_gpus", reader),
                          field_number(fields, queued, "queued_jobs", reader)});
    for (std::size_t k = 0; k < tenant_columns.size(); ++k)
      run.tenant_gpus[k].push_back(field_number(fields, tenant_columns[k],
                                                header.names()[tenant_columns[k]].c_str(), reader));
  }
}

// The columns the job classes need; nullopt when jobs.csv lacks one (older outputs).
struct ClassColumns {
  std::size_t gpus, queued, slowdown, execution, state;
  std::optional<std::size_t> restarts, preemptions, speed, user;
};

std::optional<ClassColumns> class_columns(const CsvHeader& header) {
  const auto gpus = header.find("requested_number_of_resources");
  const auto queued = header.find("queued_time");
  const auto slowdown = header.find("bounded_slowdown");
  const auto execution = header.find("execution_time");
  const auto state = header.find("final_state");
  if (!gpus || !queued || !slowdown || !execution || !state) return std::nullopt;
  return ClassColumns{*gpus,
                      *queued,
                      *slowdown,
                      *execution,
                      *state,
                      header.find("restarts"),
                      header.find("preemptions"),
                      header.find("slowdown_factor"),
                      header.find("user")};
}

std::string_view field_or_empty(const std::vector<std::string_view>& fields,
                                std::optional<std::size_t> index) {
  return index && *index < fields.size() ? trim(fields[*index]) : std::string_view();
}

// A finished job of jobs.csv as the classes see it (report_classes.hpp: when its work is known).
ReportJob class_job(const std::vector<std::string_view>& fields, const ClassColumns& c,
                    std::string_view id, std::string_view tenant, double wait_s, double jct_s,
                    const CsvReader& reader) {
  ReportJob job;
  job.id = id;
  job.gpus = static_cast<std::int64_t>(
      field_number(fields, c.gpus, "requested_number_of_resources", reader));
  job.tenant = tenant;
  job.user = field_or_empty(fields, c.user);
  job.wait_s = wait_s;
  job.jct_s = jct_s;
  job.queued_s = field_number(fields, c.queued, "queued_time", reader);
  job.bounded_slowdown = field_number(fields, c.slowdown, "bounded_slowdown", reader);
  const auto zero = [&](std::optional<std::size_t> index) {
    const std::string_view text = field_or_empty(fields, index);
    return text.empty() || parse_double(text) == 0.0;
  };
  const std::string_view speed = field_or_empty(fields, c.speed);
  if (field_or_empty(fields, c.state) == "COMPLETED_SUCCESSFULLY" && c.restarts &&
      zero(c.restarts) && zero(c.preemptions) && (speed.empty() || parse_double(speed) == 1.0))
    job.work_ms = static_cast<TimeMs>(
        std::llround(field_number(fields, c.execution, "execution_time", reader) * 1000.0));
  return job;
}

// Wait and turnaround of every job that started (empty fields: never started), and the finished
// jobs for the job classes.
void read_jobs(const std::string& path, RunData& run) {
  const std::string text = read_file_bytes(path);
  CsvReader reader(text, path);
  const auto header_names = header_row(reader, path);
  const CsvHeader header(header_names, path, reader.line());
  const std::size_t wait = require_column(header, "waiting_time", path);
  const std::size_t turnaround = require_column(header, "turnaround_time", path);
  const auto job_id = header.find("job_id");
  const auto tenant = header.find("tenant");  // older outputs have none
  const auto classes = job_id ? class_columns(header) : std::nullopt;
  if (classes) run.class_jobs.emplace();
  std::vector<std::string_view> fields;
  while (reader.next_row(fields)) {
    if (job_id && tenant && *job_id < fields.size() && *tenant < fields.size() &&
        !trim(fields[*tenant]).empty())
      run.tenants.emplace(trim(fields[*job_id]), trim(fields[*tenant]));
    const bool waited = wait < fields.size() && !trim(fields[wait]).empty();
    const bool finished = turnaround < fields.size() && !trim(fields[turnaround]).empty();
    const double wait_s = waited ? field_number(fields, wait, "waiting_time", reader) : 0.0;
    const double jct_s =
        finished ? field_number(fields, turnaround, "turnaround_time", reader) : 0.0;
    if (waited) run.waits_s.push_back(wait_s);
    if (finished) run.jcts_s.push_back(jct_s);
    if (classes && waited && finished && *job_id < fields.size())
      run.class_jobs->push_back(class_job(fields, *classes, trim(fields[*job_id]),
                                          field_or_empty(fields, tenant), wait_s, jct_s, reader));
  }
  std::sort(run.waits_s.begin(), run.waits_s.end());
  std::sort(run.jcts_s.begin(), run.jcts_s.end());
}

Json read_summary(const std::string& path) {
  const std::string text = read_file_bytes(path);
  Json summary;
  try {
    summary = parse_json_text<Json>(text, path);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(fmt::format("{}: not valid JSON (error at byte {})", path, e.byte));
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not valid JSON: {}", path, json_error_text(e)));
  }
  if (!summary.is_object() || flatten_numeric(summary).empty())
    throw ConfigError(
        fmt::format("{}: not a summary (expected a JSON object with numeric metrics)", path));
  return summary;
}

}  // namespace

// Reads summary.json and, when present, timeseries.csv and jobs.csv of one run directory.
RunData read_run_dir(const fs::path& dir, const std::string& source,
                     std::vector<std::string>& notes) {
  require_complete_output_set(dir.string());
  RunData run;
  run.source = source;
  run.summary = read_summary((dir / "summary.json").string());
  std::error_code ec;
  if (fs::exists(dir / "timeseries.csv", ec)) {
    read_timeseries((dir / "timeseries.csv").string(), run);
    run.has_series = !run.series.empty();
  } else {
    notes.push_back(fmt::format("{}: no timeseries.csv; the over-time charts leave this run out",
                                dir.string()));
  }
  if (fs::exists(dir / "jobs.csv", ec)) {
    read_jobs((dir / "jobs.csv").string(), run);
    run.has_jobs = !run.waits_s.empty() || !run.jcts_s.empty();
  } else {
    notes.push_back(
        fmt::format("{}: no jobs.csv; the CDF charts leave this run out", dir.string()));
  }
  if (fs::exists(dir / "attempts.csv", ec)) {
    const auto nodes = numeric_at(run.summary, "cluster.nodes");
    const auto gpus = numeric_at(run.summary, "cluster.gpus");
    if (!nodes || !gpus || *nodes < 1 || *gpus < 1)
      throw ConfigError(
          fmt::format("{}: expected cluster.nodes and cluster.gpus >= 1 (to draw attempts.csv)",
                      (dir / "summary.json").string()));
    run.attempts = read_attempts((dir / "attempts.csv").string(), static_cast<std::size_t>(*nodes),
                                 static_cast<std::size_t>(*gpus), run.tenants);
    run.tenants.clear();  // the attempts carry them now
  } else {
    notes.push_back(fmt::format("{}: no attempts.csv; no Gantt chart of this run", dir.string()));
  }
  return run;
}

// A `compare -o` directory: compare.json names the policies, each with its run outputs in
// DIR/<policy>/, labelled as compare labels them ("priority(blocking=false)").
std::vector<RunData> read_compare_dir(const fs::path& dir, std::vector<std::string>& notes) {
  require_complete_output_set(dir.string());
  const std::string path = (dir / "compare.json").string();
  Json compare;
  try {
    compare = parse_json_text<Json>(read_file_bytes(path), path);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(fmt::format("{}: not valid JSON (error at byte {})", path, e.byte));
  }
  if (!compare.is_object() || !compare.contains("runs") || !compare["runs"].is_array() ||
      compare["runs"].empty())
    throw ConfigError(fmt::format("{}: expected an object with a non-empty 'runs' array", path));
  std::vector<RunData> runs;
  for (const auto& entry : compare["runs"]) {
    if (!entry.is_object() || !entry.contains("policy") || !entry["policy"].is_string())
      throw ConfigError(fmt::format("{}: every run needs a 'policy' name", path));
    const std::string policy = entry["policy"].get<std::string>();
    const fs::path run_dir = dir / policy;
    std::error_code ec;
    if (!fs::exists(run_dir / "summary.json", ec))
      throw ConfigError(fmt::format("{}: no summary.json for policy '{}' listed in {}",
                                    run_dir.string(), policy, path));
    RunData run = read_run_dir(run_dir, run_dir.string(), notes);
    std::string params;
    if (entry.contains("params") && entry["params"].is_object())
      for (const auto& [key, value] : entry["params"].items())
        params += fmt::format("{}{}={}", params.empty() ? "" : ",", key,
                              value.is_string() ? value.get<std::string>() : value.dump());
    run.label = params.empty() ? policy : fmt::format("{}({})", policy, params);
    runs.push_back(std::move(run));
  }
  return runs;
}

// Whether `path` is sweep results (a .jsonl file or a directory holding results.jsonl).
std::optional<std::string> sweep_results_path(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    if (!fs::exists(fs::path(path) / "results.jsonl", ec)) return std::nullopt;
    require_complete_output_set(path);
    return (fs::path(path) / "results.jsonl").string();
  }
  if (path.ends_with(".jsonl")) return path;
  return std::nullopt;
}

SweepData read_sweep(const std::string& results_path, const ReportOptions& options) {
  SweepData sweep;
  sweep.results_path = results_path;
  sweep.rows = read_sweep_results(results_path);
  sweep.groups = aggregate_sweep(sweep.rows);
  for (const auto& row : sweep.rows) {
    add_unique(sweep.variants, row["variant"].get<std::string>());
    add_unique(sweep.traces, row["trace"].get<std::string>());
    add_unique(sweep.clusters, row["cluster"].get<std::string>());
    add_unique(sweep.loads, row["load_scale"].get<double>());
    add_unique(sweep.seeds, row["seed"].get<std::uint64_t>());
  }
  if (options.load_scale) {
    if (std::find(sweep.loads.begin(), sweep.loads.end(), *options.load_scale) == sweep.loads.end())
      throw ConfigError(fmt::format("--load {}: not a load scale of {}",
                                    format_number(*options.load_scale), results_path));
    sweep.shown_load = *options.load_scale;
  } else {
    sweep.shown_load = sweep.loads.front();
    for (const double load : sweep.loads)
      if (std::abs(std::log(load)) < std::abs(std::log(sweep.shown_load))) sweep.shown_load = load;
  }
  return sweep;
}

// The representative cell of each variant: first trace, first cluster, the shown load, the
// first seed that succeeded.
std::vector<RunData> sweep_runs(const SweepData& sweep, std::vector<std::string>& notes) {
  std::vector<RunData> runs;
  const fs::path base = fs::path(sweep.results_path).parent_path();
  for (const auto& variant : sweep.variants) {
    const Json* chosen = nullptr;
    for (const auto& row : sweep.rows) {
      if (row["variant"] == variant && row["trace"] == sweep.traces.front() &&
          row["cluster"] == sweep.clusters.front() &&
          row["load_scale"].get<double>() == sweep.shown_load && row["status"] == "ok") {
        chosen = &row;
        break;
      }
    }
    if (!chosen) {
      notes.push_back(fmt::format(
          "variant {}: no successful cell at load {}; left out of the per-policy charts", variant,
          format_number(sweep.shown_load)));
      continue;
    }
    RunData run;
    const std::string dir = chosen->contains("dir") ? (*chosen)["dir"].get<std::string>() : "";
    if (!dir.empty() && fs::exists(base / dir / "summary.json")) {
      run = read_run_dir(base / dir, (base / dir).string(), notes);
    } else {
      // "cell" is optional in a results row: without it the row is named by its axis values.
      const std::string cell_name =
          chosen->contains("cell")
              ? json_text(chosen->at("cell"))
              : fmt::format("(variant={} trace={} cluster={} load_scale={} seed={})", variant,
                            chosen->at("trace").get<std::string>(),
                            chosen->at("cluster").get<std::string>(),
                            format_number(chosen->at("load_scale").get<double>()),
                            json_text(chosen->at("seed")));
      notes.push_back(fmt::format(
          "{}: cell {} has no output directory; its charts over time and CDFs are left out",
          sweep.results_path, cell_name));
      run.summary = (*chosen)["summary"];
      run.source = sweep.results_path;
    }
    run.label = variant;
    for (const auto& group : sweep.groups) {
      if (group.definition["variant"] == variant &&
          group.definition["trace"] == sweep.traces.front() &&
          group.definition["cluster"] == sweep.clusters.front() &&
          group.definition["load_scale"].get<double>() == sweep.shown_load) {
        run.group = &group;
      }
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace schedlab::report
