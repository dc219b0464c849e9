// schedlab compare: runs several policies on the same trace, cluster and options and prints
// one table (policy by metric), or JSON / CSV for machines.
#include <algorithm>
#include <cstdio>
#include <map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/simulation.hpp"

namespace schedlab::cli {

namespace {

struct CompareArgs {
  SimulationOptions sim;
  std::string policies;
  std::vector<std::string> params;
  bool json = false;
  bool csv = false;
  std::string out_dir;
};

// One column of the comparison: a summary.json path and how to show it.
struct Metric {
  const char* key;      // CSV / JSON name
  const char* heading;  // table heading
  const char* path[2];  // summary.json path (second element may be null)
  double scale;         // table value = summary value * scale
  int decimals;         // table decimals
};

constexpr Metric kMetrics[] = {
    {"wait_mean_s", "wait mean s", {"wait_s", "mean"}, 1.0, 1},
    {"wait_p95_s", "wait p95 s", {"wait_s", "p95"}, 1.0, 1},
    {"jct_mean_s", "JCT mean s", {"jct_s", "mean"}, 1.0, 1},
    {"bounded_slowdown_mean", "bsld mean", {"bounded_slowdown", "mean"}, 1.0, 3},
    {"utilization", "util %", {"utilization", nullptr}, 100.0, 2},
    {"idle_gpu_hours_while_waiting",
     "idle GPU-h waiting",
     {"gpu_hours", "idle_while_jobs_wait"},
     1.0,
     1},
    {"restarts", "restarts", {"restarts", "total"}, 1.0, 0},
    {"lost_gpu_hours", "lost GPU-h", {"gpu_hours", "lost"}, 1.0, 2},
    {"energy_kwh", "energy kWh", {"energy_kwh", "total"}, 1.0, 1},
};

double metric_value(const nlohmann::ordered_json& summary, const Metric& metric) {
  const nlohmann::ordered_json* node = &summary;
  for (const char* part : metric.path) {
    if (part == nullptr) break;
    const auto it = node->find(part);
    SCHEDLAB_ASSERT(it != node->end() && !it->is_null(), "summary.json has every compared metric");
    node = &*it;
  }
  return node->get<double>();
}

struct Contender {
  std::string policy;
  std::map<std::string, std::string> params;
  std::string label;  // policy, with its parameters if any: "priority(blocking=false)"
};

std::vector<Contender> parse_contenders(const CompareArgs& args) {
  std::vector<Contender> out;
  std::string_view rest(args.policies);
  while (true) {
    const auto comma = rest.find(',');
    const std::string name(trim(rest.substr(0, comma)));
    if (name.empty())
      throw ConfigError(
          fmt::format("--policies '{}': expected comma-separated policy names", args.policies));
    if (std::any_of(out.begin(), out.end(), [&](const Contender& c) { return c.policy == name; }))
      throw ConfigError(
          fmt::format("--policies '{}': policy '{}' is listed twice", args.policies, name));
    out.push_back({name, {}, name});
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::map<std::string, std::vector<std::string>> items;
  for (const auto& item : args.params) {
    const auto colon = item.find(':');
    const auto eq = item.find('=');
    if (colon == std::string::npos || colon == 0 || (eq != std::string::npos && eq < colon))
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
                         const std::vector<nlohmann::ordered_json>& summaries) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> heading = {"policy"};
  for (const auto& metric : kMetrics) heading.emplace_back(metric.heading);
  cells.push_back(heading);
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    std::vector<std::string> row = {contenders[i].label};
    for (const auto& metric : kMetrics)
      row.push_back(fixed(metric_value(summaries[i], metric) * metric.scale, metric.decimals));
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
                       const std::vector<nlohmann::ordered_json>& summaries) {
  std::string out = "policy,params";
  for (const auto& metric : kMetrics) out += fmt::format(",{}", metric.key);
  out += '\n';
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    std::string params;
    for (const auto& [key, value] : contenders[i].params)
      params += fmt::format("{}{}={}", params.empty() ? "" : ";", key, value);
    append_csv_field(out, contenders[i].policy);
    out += ',';
    append_csv_field(out, params);
    for (const auto& metric : kMetrics) {
      out += ',';
      out += fixed(metric_value(summaries[i], metric), 6);
    }
    out += '\n';
  }
  return out;
}

nlohmann::ordered_json render_json(const CompareArgs& args,
                                   const std::vector<Contender>& contenders,
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
    for (const auto& metric : kMetrics) metrics[metric.key] = metric_value(summaries[i], metric);
    run["metrics"] = metrics;
    run["summary"] = summaries[i];
    out["runs"].push_back(run);
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
  cmd->add_option("-o,--out", args->out_dir,
                  "also write compare.csv, compare.json and each policy's outputs under "
                  "DIR/<policy>/");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    if (args->policies.empty()) {
      for (const auto& info : registered_policies())
        args->policies += (args->policies.empty() ? "" : ",") + info.name;
    }
    const std::vector<Contender> contenders = parse_contenders(*args);
    const RunOptions options = to_run_options(args->sim);
    const ClusterSpec cluster = parse_cluster_spec(args->sim.cluster);
    // Every name, parameter and the placement are checked before the trace is read.
    for (const auto& contender : contenders) make_policy(contender.policy, contender.params);
    make_placement(options.placement);
    const Trace trace = load_trace(args->sim.trace, args->sim.format, args->sim.filters);
    std::vector<nlohmann::ordered_json> summaries;
    for (const auto& contender : contenders) {
      SimulationRequest request;
      request.policy = contender.policy;
      request.params = contender.params;
      request.options = options;
      request.reproducible = args->sim.reproducible;
      SimulationResult result = simulate(trace, cluster, request);
      spdlog::info("{}: {} events in {} s", contender.label, result.engine.events,
                   fixed(result.summary["engine"]["wall_s"].get<double>(), 3));
      summaries.push_back(result.summary);
      if (!args->out_dir.empty()) {
        const std::string summary_text = result.summary.dump(2) + "\n";
        write_files_atomically(args->out_dir + "/" + contender.policy,
                               {{"summary.json", summary_text},
                                {"jobs.csv", result.jobs_csv},
                                {"timeseries.csv", result.timeseries_csv}});
      }
    }
    const std::string csv = render_csv(contenders, summaries);
    const std::string json = render_json(*args, contenders, summaries).dump(2) + "\n";
    if (!args->out_dir.empty())
      write_files_atomically(args->out_dir, {{"compare.csv", csv}, {"compare.json", json}});
    std::string shown;
    if (args->json) {
      shown = json;
    } else if (args->csv) {
      shown = csv;
    } else {
      shown = fmt::format("trace {} ({} jobs) on cluster {}, placement {}\n", trace.path,
                          trace.jobs.size(), args->sim.cluster, options.placement) +
              render_table(contenders, summaries);
    }
    std::fwrite(shown.data(), 1, shown.size(), stdout);
    return kExitOk;
  };
}

}  // namespace schedlab::cli
