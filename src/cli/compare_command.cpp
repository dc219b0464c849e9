// schedlab compare: a one-axis sweep over policies on the same trace, cluster and options,
// shown as one table (policy by metric, named by the metric catalog), or JSON / CSV.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/job_classes.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/metric_catalog.hpp"
#include "schedlab/output.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/sweep.hpp"
#include "terminal_status.hpp"

namespace schedlab::cli {

namespace {

struct CompareArgs {
  SimulationOptions sim;
  std::string policies;
  std::vector<std::string> params;
  bool json = false;
  bool csv = false;
  bool quiet = false;
  std::string out_dir;
  std::vector<std::string> by;  // job-class kinds, as given
  std::string size_classes;
  std::string duration_classes;
};

std::vector<JobClassKind> parse_kinds(const std::vector<std::string>& items) {
  std::vector<JobClassKind> out;
  for (const auto& item : items) {
    for (const std::string_view part : split_on(item, ',')) {
      const auto kind = parse_job_class_kind(std::string(trim(part)));
      if (!kind)
        throw ConfigError(fmt::format("--by '{}': expected size, duration, tenant or user", item));
      if (std::find(out.begin(), out.end(), *kind) == out.end()) out.push_back(*kind);
    }
  }
  return out;
}

// The classes of one kind that hold jobs under some policy, in class order (every policy lists
// the same classes: the same jobs finish or are rejected whatever the policy).
std::vector<std::string> class_labels(const std::vector<nlohmann::ordered_json>& summaries,
                                      const std::string& key) {
  std::vector<std::string> labels;
  for (const auto& summary : summaries)
    for (const auto& [label, row] : summary[key].items())
      if (row.value("jobs", 0) > 0 &&
          std::find(labels.begin(), labels.end(), label) == labels.end())
        labels.push_back(label);
  return labels;
}

// A contender's value of a compared metric: its across-seed mean (one seed: the value).
double metric_value(const SweepGroup& group, std::string_view key) {
  const auto it = group.stats.find(std::string(key));
  SCHEDLAB_ASSERT(it != group.stats.end(), "summary.json has every compared metric");
  return it->second.mean;
}

struct Contender {
  std::string policy;
  std::map<std::string, std::string> params;
  std::string label;  // policy, with its parameters if any: "priority(blocking=false)"
};

std::vector<Contender> parse_contenders(const CompareArgs& args) {
  std::vector<Contender> out;
  for (const std::string_view part : split_on(args.policies, ',')) {
    const std::string name(trim(part));
    if (name.empty())
      throw ConfigError(
          fmt::format("--policies '{}': expected comma-separated policy names", args.policies));
    if (std::any_of(out.begin(), out.end(), [&](const Contender& c) { return c.policy == name; }))
      throw ConfigError(
          fmt::format("--policies '{}': policy '{}' is listed twice", args.policies, name));
    out.push_back({name, {}, name});
  }
  std::map<std::string, std::vector<std::string>> items;
  for (const auto& item : args.params) {
    // POLICY runs to the last ':' before KEY=VALUE's '=': a policy name may hold ':' itself
    // (py:FILE:CLASS), a key never does.
    const auto eq = item.find('=');
    const auto colon = item.rfind(':', eq);
    if (colon == std::string::npos || colon == 0)
      throw ConfigError(fmt::format("--param '{}': expected POLICY:KEY=VALUE", item));
    const std::string policy(trim(std::string_view(item).substr(0, colon)));
    if (std::none_of(out.begin(), out.end(),
                     [&](const Contender& c) { return c.policy == policy; }))
      throw ConfigError(
          fmt::format("--param '{}': policy '{}' is not in --policies", item, policy));
    items[policy].push_back(item.substr(colon + 1));
  }
  for (auto& contender : out) {
    contender.params = parse_param_list(items[contender.policy]);
    if (contender.params.empty()) continue;
    std::string list;
    for (const auto& [key, value] : contender.params)
      list += fmt::format("{}{}={}", list.empty() ? "" : ",", key, value);
    contender.label = fmt::format("{}({})", contender.policy, list);
  }
  return out;
}

std::string render_table(const std::vector<Contender>& contenders,
                         const std::vector<SweepGroup>& groups) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> heading = {"policy"};
  for (const std::string_view key : compared_metric_keys()) heading.emplace_back(key);
  cells.push_back(heading);
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    std::vector<std::string> row = {contenders[i].label};
    for (const std::string_view key : compared_metric_keys())
      row.push_back(metric_value_text(catalog_metric(key), metric_value(groups[i], key)));
    cells.push_back(row);
  }
  std::vector<std::size_t> width(heading.size(), 0);
  for (const auto& row : cells)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : cells) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c == 0) {
        out += fmt::format("{:<{}}", row[c], width[c]);
      } else {
        out += fmt::format("  {:>{}}", row[c], width[c]);
      }
    }
    out += '\n';
  }
  return out;
}

std::string render_csv(const std::vector<Contender>& contenders,
                       const std::vector<SweepGroup>& groups) {
  std::string out = "policy,params";
  for (const std::string_view key : compared_metric_keys()) out += fmt::format(",{}", key);
  out += '\n';
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    std::string params;
    for (const auto& [key, value] : contenders[i].params)
      params += fmt::format("{}{}={}", params.empty() ? "" : ";", key, value);
    append_csv_field(out, contenders[i].policy);
    out += ',';
    append_csv_field(out, params);
    for (const std::string_view key : compared_metric_keys()) {
      out += ',';
      out += fixed(metric_value(groups[i], key), 6);
    }
    out += '\n';
  }
  return out;
}

nlohmann::ordered_json render_json(const CompareArgs& args,
                                   const std::vector<Contender>& contenders,
                                   const std::vector<SweepGroup>& groups,
                                   const std::vector<nlohmann::ordered_json>& summaries) {
  nlohmann::ordered_json out;
  out["trace"] = args.sim.trace;
  out["cluster"] = args.sim.cluster;
  out["runs"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    nlohmann::ordered_json run;
    run["policy"] = contenders[i].policy;
    run["params"] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : contenders[i].params) run["params"][key] = value;
    nlohmann::ordered_json metrics;
    for (const std::string_view key : compared_metric_keys())
      metrics[std::string(key)] = metric_value(groups[i], key);
    run["metrics"] = metrics;
    run["summary"] = summaries[i];
    out["runs"].push_back(run);
  }
  return out;
}

std::string render_class_table(JobClassKind kind, const std::vector<Contender>& contenders,
                               const std::vector<nlohmann::ordered_json>& summaries) {
  const std::string key = std::string("by_") + job_class_kind_name(kind);
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> heading = {job_class_kind_name(kind), "policy", "jobs"};
  for (const std::string_view metric : job_class_metric_keys()) heading.emplace_back(metric);
  cells.push_back(heading);
  for (const auto& label : class_labels(summaries, key)) {
    for (std::size_t i = 0; i < contenders.size(); ++i) {
      const nlohmann::ordered_json& row = summaries[i][key].contains(label)
                                              ? summaries[i][key][label]
                                              : nlohmann::ordered_json::object();
      std::vector<std::string> line = {label, contenders[i].label,
                                       fmt::format("{}", row.value("jobs", 0))};
      for (const std::string_view metric : job_class_metric_keys()) {
        const auto value = job_class_value(row, metric);
        line.push_back(value ? metric_value_text(catalog_metric(metric), *value) : "-");
      }
      cells.push_back(line);
    }
  }
  std::vector<std::size_t> width(heading.size(), 0);
  for (const auto& row : cells)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out = fmt::format("\nby {}:\n", job_class_kind_name(kind));
  for (const auto& row : cells) {
    for (std::size_t c = 0; c < row.size(); ++c)
      out += c < 2 ? fmt::format("{}{:<{}}", c == 0 ? "" : "  ", row[c], width[c])
                   : fmt::format("  {:>{}}", row[c], width[c]);
    out += '\n';
  }
  return out;
}

std::string render_class_csv(JobClassKind kind, const std::vector<Contender>& contenders,
                             const std::vector<nlohmann::ordered_json>& summaries) {
  const std::string key = std::string("by_") + job_class_kind_name(kind);
  std::string out = "class,policy,params,jobs";
  for (const std::string_view metric : job_class_metric_keys()) out += fmt::format(",{}", metric);
  out += '\n';
  for (const auto& label : class_labels(summaries, key)) {
    for (std::size_t i = 0; i < contenders.size(); ++i) {
      const nlohmann::ordered_json& row = summaries[i][key].contains(label)
                                              ? summaries[i][key][label]
                                              : nlohmann::ordered_json::object();
      std::string params;
      for (const auto& [k, v] : contenders[i].params)
        params += fmt::format("{}{}={}", params.empty() ? "" : ";", k, v);
      append_csv_field(out, label);
      out += ',';
      append_csv_field(out, contenders[i].policy);
      out += ',';
      append_csv_field(out, params);
      out += fmt::format(",{}", row.value("jobs", 0));
      for (const std::string_view metric : job_class_metric_keys()) {
        out += ',';
        if (const auto value = job_class_value(row, metric)) out += fixed(*value, 6);
      }
      out += '\n';
    }
  }
  return out;
}

}  // namespace

Action add_compare_command(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "run several policies on the same trace and cluster and compare their metrics");
  add_simulation_options(*cmd, args->sim);
  cmd->add_option("--policies", args->policies,
                  "comma-separated policy names (default: every registered policy)");
  cmd->add_option("--param", args->params,
                  "parameter of one listed policy, POLICY:KEY=VALUE (repeatable)");
  auto* json_flag = cmd->add_flag("--json", args->json, "print the comparison as JSON");
  cmd->add_flag("--csv", args->csv, "print the comparison as CSV")->excludes(json_flag);
  cmd->add_flag("-q,--quiet", args->quiet, "no progress line on a terminal's stderr");
  cmd->add_option("-o,--out", args->out_dir,
                  "also write compare.csv, compare.json and each policy's outputs under "
                  "DIR/<policy>/ (with --by, compare-by-KIND.csv too)")
      ->check(non_empty_output_path());
  cmd->add_option("--by", args->by,
                  "size|duration|tenant|user[,...]: also compare per job class (GPU count, "
                  "work, tenant, user): who wins and who pays (repeatable)");
  cmd->add_option("--size-classes", args->size_classes,
                  "--by size: upper GPU bounds of the classes but the last (default 1,4,8: "
                  "1, 2-4, 5-8, 9+)");
  cmd->add_option("--duration-classes", args->duration_classes,
                  "--by duration: upper work bounds of the classes but the last (default "
                  "10m,1h,6h,1d)");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    if (args->policies.empty()) {
      for (const auto& info : registered_policies())
        args->policies += (args->policies.empty() ? "" : ",") + info.name;
    }
    const std::vector<Contender> contenders = parse_contenders(*args);
    const std::vector<JobClassKind> kinds = parse_kinds(args->by);
    JobClassBounds bounds;
    if (!args->size_classes.empty())
      bounds.size_upper = parse_size_bounds("--size-classes", args->size_classes);
    if (!args->duration_classes.empty())
      bounds.duration_upper_ms =
          parse_duration_bounds("--duration-classes", args->duration_classes);
    // A one-axis sweep over the policies: one trace, one cluster, one seed, load as traced.
    SweepSpec spec;
    spec.source = "command line";
    for (const auto& contender : contenders)
      spec.variants.push_back({contender.policy, contender.params, contender.label});
    spec.traces.push_back({args->sim.trace, args->sim.format});
    spec.clusters.push_back(args->sim.cluster);
    spec.load_scales = {1.0};
    spec.options = to_run_options(args->sim);
    spec.seeds = {spec.options.seed};
    spec.reproducible = args->sim.reproducible;
    SweepInputs inputs;
    inputs.clusters.push_back(parse_cluster_spec(args->sim.cluster));
    // Every name, parameter and the placement are checked before the trace is read.
    for (const auto& contender : contenders) {
      try {
        make_policy(contender.policy, contender.params);
      } catch (const ConfigError& e) {
        // The policy came from --policies: say so, not --policy.
        std::string message = e.what();
        if (message.starts_with("--policy:")) message = "--policies:" + message.substr(9);
        throw ConfigError(message);
      }
    }
    make_placement(spec.options.placement);
    inputs.traces.push_back(load_trace(args->sim.trace, args->sim.format, args->sim.filters));
    const Trace& trace = inputs.traces.front();

    // Rewriting an earlier comparison: the directory reads as incomplete until compare.json
    // and its marker are written again, after every policy's outputs.
    std::optional<OutputDirLock> lock;  // inputs checked: the directory is ours until the end
    if (!args->out_dir.empty()) {
      lock.emplace(args->out_dir);
      std::error_code ignored;
      std::filesystem::remove(std::filesystem::path(args->out_dir) / kCompleteMarker, ignored);
    }
    const std::vector<SweepCell> cells = expand_cells(spec);
    std::vector<nlohmann::ordered_json> summaries(cells.size());
    std::vector<std::exception_ptr> failures(cells.size());
    TerminalStatus status(args->quiet);
    auto work = [&](const SweepCell& cell) {
      CellOutputs outputs;
      outputs.files = !args->out_dir.empty();
      outputs.job_classes = kinds;
      outputs.class_bounds = bounds;
      if (status.enabled())
        outputs.progress = [&status, &cell, &contenders](const RunProgress& p) {
          status.show(fmt::format("[{}/{}] {}: {}", cell.index + 1, contenders.size(),
                                  contenders[cell.variant].label, format_run_progress(p)));
        };
      SimulationResult result = simulate_cell(spec, inputs, cell, outputs);
      spdlog::info("{}: {} events in {} s", contenders[cell.variant].label, result.engine.events,
                   fixed(result.summary["engine"]["wall_s"].get<double>(), 3));
      if (!args->out_dir.empty()) {
        const std::string summary_text = json_text(result.summary, 2) + "\n";
        const std::string dir = args->out_dir + "/" + contenders[cell.variant].policy;
        remove_stale_temporaries(dir);
        write_files_atomically(dir, run_output_files(result, summary_text));
      }
      summaries[cell.index] = std::move(result.summary);
    };
    bool failed = false;
    for_each_cell(cells, 1, work,
                  [&](const SweepCell& cell, const std::exception_ptr& failure, double /*wall_s*/) {
                    failures[cell.index] = failure;
                    failed = failed || failure;
                  });
    status.clear();
    // A failing policy fails the command, as a single run would (its exit code).
    for (const auto& failure : failures)
      if (failure) std::rethrow_exception(failure);
    SCHEDLAB_ASSERT(!failed, "every failure was rethrown");
    std::vector<nlohmann::ordered_json> rows;
    rows.reserve(cells.size());
    for (const auto& cell : cells)
      rows.push_back(results_row(spec, cell, &summaries[cell.index], ""));
    const std::vector<SweepGroup> groups = aggregate_sweep(rows);
    SCHEDLAB_ASSERT(groups.size() == contenders.size(), "one group per policy");

    const std::string csv = render_csv(contenders, groups);
    const std::string json = json_text(render_json(*args, contenders, groups, summaries), 2) + "\n";
    std::vector<std::pair<std::string, std::string>> class_csvs;
    class_csvs.reserve(kinds.size());
    for (const JobClassKind kind : kinds)
      class_csvs.emplace_back(fmt::format("compare-by-{}.csv", job_class_kind_name(kind)),
                              render_class_csv(kind, contenders, summaries));
    if (!args->out_dir.empty()) {
      std::vector<std::pair<std::string, std::string_view>> files = {{"compare.csv", csv},
                                                                     {"compare.json", json}};
      for (const auto& [name, text] : class_csvs) files.emplace_back(name, text);
      write_files_atomically(args->out_dir, files);
    }
    std::string shown;
    if (args->json) {
      shown = json;
    } else if (args->csv) {
      shown = csv;
    } else {
      shown = fmt::format("trace {} ({} jobs) on cluster {}, placement {}\n", trace.path,
                          trace.jobs.size(), args->sim.cluster, spec.options.placement) +
              render_table(contenders, groups);
      for (const JobClassKind kind : kinds)
        shown += render_class_table(kind, contenders, summaries);
    }
    std::fwrite(shown.data(), 1, shown.size(), stdout);
    return kExitOk;
  };
}

}  // namespace schedlab::cli
