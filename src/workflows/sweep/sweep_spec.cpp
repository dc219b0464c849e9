// Reading a sweep spec (its policies, traces, clusters, load scales, seeds and options) into a
// SweepSpec, with files named relative to the spec, and writing it back as sweep.json.
#include "schedlab/sweep.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_keys.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/run_option_table.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/tenants.hpp"

namespace schedlab {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

[[noreturn]] void spec_error(const std::string& source, const std::string& field,
                             const std::string& problem) {
  throw ConfigError(fmt::format("{}: {}: {}", source, field, problem));
}

// A parameter value as the policy sees it ("60", "0.5", "true", "name").
std::string param_text(const Json& value, const std::string& source, const std::string& field) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer() || value.is_number_unsigned()) return json_text(value);
  if (value.is_number_float()) return format_number(value.get<double>());
  spec_error(source, field,
             fmt::format("expected a string, number or boolean, got {}", json_text(value)));
}

// The message lists the allowed keys in alphabetical order.
void check_keys(const Json& object, std::vector<std::string> allowed, const std::string& source,
                const std::string& where) {
  std::sort(allowed.begin(), allowed.end());
  if (const auto key = first_unknown_key(object, allowed))
    spec_error(source, where.empty() ? *key : where + "." + *key, unknown_key_problem(allowed));
}

const Json& require_array(const Json& spec, const std::string& key, const std::string& source) {
  const auto it = spec.find(key);
  if (it == spec.end()) spec_error(source, key, "missing (a non-empty list)");
  if (!it->is_array() || it->empty())
    spec_error(source, key, fmt::format("expected a non-empty list, got {}", json_text(*it)));
  return *it;
}

// Most cells a sweep may have. A few lines of spec can multiply into billions of cells (six
// parameters of twenty values each, or many seed ranges), which would exhaust memory while the
// spec is still being read: such specs are refused before any axis is expanded that far.
constexpr std::size_t kMaxSweepCells = 1'000'000;

// a * b, saturating at kMaxSweepCells + 1 (both factors are at most that).
std::size_t capped_product(std::size_t a, std::size_t b) {
  if (a != 0 && b > (kMaxSweepCells + 1) / a) return kMaxSweepCells + 1;
  return std::min(a * b, kMaxSweepCells + 1);
}

std::string params_label(const std::map<std::string, std::string>& params) {
  std::string out;
  for (const auto& [key, value] : params) out += (out.empty() ? "" : ",") + key + "=" + value;
  return out;
}

void parse_policies(const Json& list, const std::string& source, SweepSpec& spec) {
  std::set<std::string> labels;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& entry = list[i];
    const std::string field = fmt::format("policies[{}]", i);
    std::string name;
    std::string label;
    // Parameter grid: key -> candidate values; the cross product makes the variants.
    std::map<std::string, std::vector<std::string>> grid;
    if (entry.is_string()) {
      name = entry.get<std::string>();
    } else if (entry.is_object()) {
      check_keys(entry, {"label", "name", "params"}, source, field);
      const auto it = entry.find("name");
      if (it == entry.end() || !it->is_string())
        spec_error(source, field + ".name", "missing (the policy name, a string)");
      name = it->get<std::string>();
      if (const auto l = entry.find("label"); l != entry.end()) {
        if (!l->is_string() || l->get<std::string>().empty())
          spec_error(source, field + ".label",
                     fmt::format("expected a non-empty string, got {}", json_text(*l)));
        label = l->get<std::string>();
      }
      if (const auto p = entry.find("params"); p != entry.end()) {
        if (!p->is_object())
          spec_error(source, field + ".params",
                     fmt::format("expected an object, got {}", json_text(*p)));
        for (const auto& [key, value] : p->items()) {
          const std::string pfield = field + ".params." + key;
          auto& values = grid[key];
          if (value.is_array()) {
            if (value.empty()) spec_error(source, pfield, "expected a non-empty list of values");
            for (std::size_t k = 0; k < value.size(); ++k)
              values.push_back(param_text(value[k], source, fmt::format("{}[{}]", pfield, k)));
          } else {
            values.push_back(param_text(value, source, pfield));
          }
        }
      }
    } else {
      spec_error(source, field,
                 fmt::format("expected a policy name or an object, got {}", json_text(entry)));
    }
    if (name.empty()) spec_error(source, field, "empty policy name");
    std::size_t combinations = 1;
    for (const auto& [key, values] : grid)
      combinations = capped_product(combinations, values.size());
    if (spec.variants.size() + combinations > kMaxSweepCells)
      spec_error(source, field,
                 fmt::format("more than {} variants (parameter values multiply): a sweep has at "
                             "most {} cells",
                             kMaxSweepCells, kMaxSweepCells));
    // Cross product over the keys in sorted order; the last key varies fastest.
    std::vector<std::map<std::string, std::string>> assignments = {{}};
    for (const auto& [key, values] : grid) {
      std::vector<std::map<std::string, std::string>> next;
      for (const auto& partial : assignments) {
        for (const auto& value : values) {
          auto extended = partial;
          extended[key] = value;
          next.push_back(std::move(extended));
        }
      }
      assignments = std::move(next);
    }
    for (const auto& params : assignments) {
      try {
        make_policy(name, params);
      } catch (const InputError& e) {
        spec_error(source, field, e.what());
      }
      SweepVariant variant;
      variant.policy = name;
      variant.params = params;
      const std::string suffix =
          params.empty() ? std::string() : fmt::format("({})", params_label(params));
      variant.label =
          label.empty() ? name + suffix : (assignments.size() > 1 ? label + suffix : label);
      if (!labels.insert(variant.label).second)
        spec_error(source, field, fmt::format("variant '{}' appears twice", variant.label));
      spec.variants.push_back(std::move(variant));
    }
  }
}

}  // namespace

namespace {

struct ClusterFileParts {
  std::string prefix, file, suffix;  // text = prefix + file + suffix; file "" = none
};

ClusterFileParts split_cluster_file(const std::string& text) {
  for (const std::string prefix : {"alibaba-openb:", "alibaba-pai:", "philly-vc:"}) {
    if (!text.starts_with(prefix)) continue;
    std::string rest = text.substr(prefix.size());
    std::string suffix;
    if (prefix == "philly-vc:")
      if (const auto at = rest.rfind('@'); at != std::string::npos) {
        suffix = rest.substr(at);
        rest.resize(at);
      }
    return {prefix, rest, suffix};
  }
  if (text.ends_with(".json") || text.find('/') != std::string::npos) return {"", text, ""};
  return {text, "", ""};
}

}  // namespace

std::string cluster_spec_file(const std::string& text) {
  return split_cluster_file(text).file;
}

std::string rewrite_cluster_spec_file(
    const std::string& text, const std::function<std::string(const std::string&)>& rewrite) {
  const ClusterFileParts parts = split_cluster_file(text);
  if (parts.file.empty()) return text;
  return parts.prefix + rewrite(parts.file) + parts.suffix;
}

namespace {

// A file named in a spec: relative paths are relative to the spec file's directory. The joined
// path is tidied ("a/./b/../c" to "a/c") only where that names the same file: through a
// symlinked directory, "link/../x" is not "x".
std::string resolve_spec_path(const std::string& path, const std::string& base_dir) {
  const fs::path joined = base_dir.empty() || !fs::path(path).is_relative()
                              ? fs::path(path)
                              : fs::path(base_dir) / path;
  const fs::path tidy = joined.lexically_normal();
  std::error_code ec;
  if (tidy == joined || !fs::exists(joined, ec)) return tidy.string();
  return fs::equivalent(joined, tidy, ec) ? tidy.string() : joined.string();
}

// The spec's "options", as the run command's flags of the same names (run_option_table.hpp).
// Generated failures without seed=S draw from each cell's seed, so the seeds axis varies them.
void parse_options(const Json& options, const std::string& source, const std::string& base_dir,
                   SweepSpec& spec) {
  if (!options.is_object())
    spec_error(source, "options", fmt::format("expected an object, got {}", json_text(options)));
  std::vector<std::string> known;
  for (const auto& option : run_option_table())
    if (option.in_spec) known.emplace_back(option.key);
  check_keys(options, known, source, "options");
  auto text_given = [&options](const char* key) {
    const auto it = options.find(key);
    return it != options.end() && it->is_string() && !it->get<std::string>().empty();
  };
  if (text_given("failures") && text_given("failure_trace"))
    spec_error(source, "options.failure_trace", "cannot be combined with options.failures");
  for (const auto& option : run_option_table()) {
    const auto it = options.find(std::string(option.key));
    if (!option.in_spec || it == options.end()) continue;
    const std::string field = fmt::format("options.{}", option.key);
    Json value = *it;
    if (option.kind == RunOptionKind::kFile && it->is_string() && !it->get<std::string>().empty())
      value = resolve_spec_path(it->get<std::string>(), base_dir);
    if (option.key == "tenants" && it->is_string())
      value = rewrite_tenants_spec_file(
          it->get<std::string>(),
          [&base_dir](const std::string& file) { return resolve_spec_path(file, base_dir); });
    try {
      set_run_option_json(spec.options, option, value);
    } catch (const InputError& e) {
      spec_error(source, field, e.what());
    }
  }
}

std::uint64_t parse_seed(const Json& value, const std::string& source, const std::string& field) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(value.get<std::int64_t>());
  spec_error(source, field,
             fmt::format("expected an integer >= 0 or a range \"A-B\", got {}", json_text(value)));
}

void parse_seeds(const Json& list, const std::string& source, SweepSpec& spec) {
  std::set<std::uint64_t> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string field = fmt::format("seeds[{}]", i);
    std::vector<std::uint64_t> seeds;
    if (list[i].is_string()) {
      // "A-B": every seed from A to B inclusive.
      const std::string text = list[i].get<std::string>();
      const auto dash = text.find('-');
      const auto first = parse_int(text.substr(0, dash));
      const auto last = dash == std::string::npos ? std::nullopt : parse_int(text.substr(dash + 1));
      if (!first || !last || *first < 0 || *last < *first)
        spec_error(source, field,
                   fmt::format("expected a range \"A-B\" with 0 <= A <= B, got \"{}\"", text));
      constexpr std::int64_t kMaxSeedsPerRange = 100'000;
      if (*last - *first >= kMaxSeedsPerRange)
        spec_error(
            source, field,
            fmt::format("range \"{}\" holds {} seeds: a range may hold at most {} seeds "
                        "(docs/workflows.md)",
                        text, static_cast<std::uint64_t>(*last - *first) + 1, kMaxSeedsPerRange));
      if (spec.seeds.size() + static_cast<std::size_t>(*last - *first + 1) > kMaxSweepCells)
        spec_error(source, field,
                   fmt::format("more than {} seeds: a sweep has at most {} cells", kMaxSweepCells,
                               kMaxSweepCells));
      for (auto s = *first; s <= *last; ++s) seeds.push_back(static_cast<std::uint64_t>(s));
    } else {
      seeds.push_back(parse_seed(list[i], source, field));
    }
    for (const auto seed : seeds) {
      if (!seen.insert(seed).second)
        spec_error(source, field, fmt::format("seed {} appears twice", seed));
      spec.seeds.push_back(seed);
    }
  }
}

// The options as sweep.json and cell.json write them: those left at their defaults only where
// the table says they always appear.
Json options_json(const RunOptions& o) {
  Json out = Json::object();
  for (const auto& option : run_option_table())
    if (option.in_spec && (option.shown_in_spec == nullptr || option.shown_in_spec(o)))
      out[std::string(option.key)] = option.value(o);
  return out;
}

}  // namespace

SweepSpec parse_sweep_spec(const Json& json, const std::string& source,
                           const std::string& base_dir) {
  if (!json.is_object()) spec_error(source, "(top level)", "expected a JSON object");
  check_keys(json,
             {"clusters", "description", "load_scales", "options", "policies", "reproducible",
              "seeds", "traces"},
             source, "");
  SweepSpec spec;
  spec.source = source;
  if (const auto it = json.find("description"); it != json.end() && !it->is_string())
    spec_error(source, "description", "expected a string");
  parse_policies(require_array(json, "policies", source), source, spec);
  const Json& traces = require_array(json, "traces", source);
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const std::string field = fmt::format("traces[{}]", i);
    SweepTrace trace;
    if (traces[i].is_string()) {
      trace.path = traces[i].get<std::string>();
    } else if (traces[i].is_object()) {
      check_keys(traces[i], {"format", "path"}, source, field);
      const auto path = traces[i].find("path");
      if (path == traces[i].end() || !path->is_string())
        spec_error(source, field + ".path", "missing (the trace file, a string)");
      trace.path = path->get<std::string>();
      if (const auto format = traces[i].find("format"); format != traces[i].end()) {
        if (!format->is_string()) spec_error(source, field + ".format", "expected a string");
        trace.format = format->get<std::string>();
      }
    } else {
      spec_error(source, field,
                 fmt::format("expected a path or an object, got {}", json_text(traces[i])));
    }
    if (trace.path.empty()) spec_error(source, field, "empty path");
    // Normalized where that names the same file ("./t.csv" is "t.csv"), so one trace has one
    // name in cell keys.
    trace.path = resolve_spec_path(trace.path, base_dir);
    for (const auto& other : spec.traces)
      if (other.path == trace.path && other.format == trace.format)
        spec_error(source, field, fmt::format("trace '{}' appears twice", trace.path));
    spec.traces.push_back(std::move(trace));
  }
  const Json& clusters = require_array(json, "clusters", source);
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    const std::string field = fmt::format("clusters[{}]", i);
    if (!clusters[i].is_string())
      spec_error(source, field,
                 fmt::format("expected a cluster spec string, got {}", json_text(clusters[i])));
    const std::string text = rewrite_cluster_spec_file(
        clusters[i].get<std::string>(),
        [&base_dir](const std::string& file) { return resolve_spec_path(file, base_dir); });
    try {
      parse_cluster_spec(text);
    } catch (const InputError& e) {
      spec_error(source, field, e.what());
    }
    if (std::find(spec.clusters.begin(), spec.clusters.end(), text) != spec.clusters.end())
      spec_error(source, field, fmt::format("cluster '{}' appears twice", text));
    spec.clusters.push_back(text);
  }
  if (json.contains("load_scales")) {
    const Json& loads = require_array(json, "load_scales", source);
    for (std::size_t i = 0; i < loads.size(); ++i) {
      const std::string field = fmt::format("load_scales[{}]", i);
      if (!loads[i].is_number() || !(loads[i].get<double>() >= 0.001) ||
          !(loads[i].get<double>() <= 1000))
        spec_error(source, field,
                   fmt::format("expected a number in 0.001..1000, got {}", json_text(loads[i])));
      const double load = loads[i].get<double>();
      if (std::find(spec.load_scales.begin(), spec.load_scales.end(), load) !=
          spec.load_scales.end())
        spec_error(source, field, fmt::format("load scale {} appears twice", format_number(load)));
      spec.load_scales.push_back(load);
    }
  } else {
    spec.load_scales = {1.0};
  }
  if (json.contains("seeds")) {
    parse_seeds(require_array(json, "seeds", source), source, spec);
  } else {
    spec.seeds = {1};
  }
  std::size_t cells = 1;
  for (const std::size_t axis : {spec.variants.size(), spec.traces.size(), spec.clusters.size(),
                                 spec.load_scales.size(), spec.seeds.size()})
    cells = capped_product(cells, axis);
  if (cells > kMaxSweepCells)
    spec_error(source, "(top level)",
               fmt::format("more than {} cells (policy variants x traces x clusters x load scales "
                           "x seeds: {} x {} x {} x {} x {})",
                           kMaxSweepCells, spec.variants.size(), spec.traces.size(),
                           spec.clusters.size(), spec.load_scales.size(), spec.seeds.size()));
  if (const auto it = json.find("options"); it != json.end())
    parse_options(*it, source, base_dir, spec);
  if (const auto it = json.find("reproducible"); it != json.end()) {
    if (!it->is_boolean())
      spec_error(source, "reproducible",
                 fmt::format("expected true or false, got {}", json_text(*it)));
    spec.reproducible = it->get<bool>();
  }
  return spec;
}

Json sweep_spec_json(const SweepSpec& spec) {
  Json out;
  Json policies = Json::array();
  for (const auto& v : spec.variants) {
    Json entry;
    entry["name"] = v.policy;
    entry["params"] = Json::object();
    for (const auto& [key, value] : v.params) entry["params"][key] = value;
    entry["label"] = v.label;
    policies.push_back(std::move(entry));
  }
  out["policies"] = std::move(policies);
  Json traces = Json::array();
  for (const auto& t : spec.traces) traces.push_back(Json{{"path", t.path}, {"format", t.format}});
  out["traces"] = std::move(traces);
  out["clusters"] = spec.clusters;
  out["load_scales"] = spec.load_scales;
  out["seeds"] = spec.seeds;
  out["options"] = options_json(spec.options);
  out["reproducible"] = spec.reproducible;
  return out;
}

}  // namespace schedlab
