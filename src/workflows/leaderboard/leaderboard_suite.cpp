// parse_leaderboard_suite: a suite file into one sweep spec per trace (format in
// docs/leaderboard.md). The policies, seeds and options of every trace are parsed by the sweep's
// own parser, so a suite accepts exactly what a sweep spec accepts there.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedlab/error.hpp"
#include "schedlab/json_keys.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/leaderboard.hpp"
#include "schedlab/plugin.hpp"

namespace schedlab {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// Ranking metrics when the suite names none.
const std::vector<std::string> kDefaultMetrics = {"wait_s.mean", "jct_s.mean",
                                                  "bounded_slowdown.mean"};

[[noreturn]] void suite_error(const std::string& source, const std::string& field,
                              const std::string& problem) {
  throw ConfigError(fmt::format("{}: {}: {}", source, field, problem));
}

void check_keys(const Json& object, std::vector<std::string> allowed, const std::string& source,
                const std::string& where) {
  std::sort(allowed.begin(), allowed.end());
  if (const auto key = first_unknown_key(object, allowed))
    suite_error(source, where.empty() ? *key : where + "." + *key, unknown_key_problem(allowed));
}

std::string optional_string(const Json& object, const char* key, const std::string& source,
                            const std::string& field) {
  const auto it = object.find(key);
  if (it == object.end()) return {};
  if (!it->is_string() || it->get<std::string>().empty())
    suite_error(source, field, fmt::format("expected a non-empty string, got {}", json_text(*it)));
  return it->get<std::string>();
}

std::string resolve(const std::string& path, const std::string& base_dir) {
  if (base_dir.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

// A trace name names a directory: letters, digits, '.', '_' and '-', not starting with '.'.
bool valid_trace_name(const std::string& name) {
  if (name.empty() || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

// "py:FILE.py:CLASS" with FILE resolved against the suite's directory; the label stays the name
// as written, so boards do not depend on where the suite lies.
Json resolve_python_policy(const Json& entry, const std::string& base_dir) {
  const bool is_name = entry.is_string();
  const Json* name = is_name ? &entry : nullptr;
  if (entry.is_object())
    if (const auto it = entry.find("name"); it != entry.end() && it->is_string()) name = &*it;
  if (name == nullptr) return entry;
  const std::string text = name->get<std::string>();
  if (!text.starts_with("py:")) return entry;
  const std::string rest = text.substr(3);
  const std::size_t colon = rest.rfind(':');
  const bool has_class = colon != std::string::npos && rest.substr(0, colon).ends_with(".py");
  const std::string file = has_class ? rest.substr(0, colon) : rest;
  const std::string resolved =
      "py:" + resolve(file, base_dir) + (has_class ? rest.substr(colon) : std::string());
  if (is_name) return Json{{"name", resolved}, {"label", text}};
  Json out = entry;
  out["name"] = resolved;
  if (!out.contains("label")) out["label"] = text;
  return out;
}

// `json` is the "metrics" value (null: the defaults); `field` names it in messages.
std::vector<LeaderboardMetric> parse_metrics(const Json& json, const std::string& source,
                                             const std::string& field_name) {
  std::vector<std::string> keys = kDefaultMetrics;
  if (!json.is_null()) {
    const Json* it = &json;
    if (!it->is_array() || it->empty())
      suite_error(source, field_name, "expected a non-empty list of summary.json metric keys");
    keys.clear();
    for (std::size_t i = 0; i < it->size(); ++i) {
      const Json& key = (*it)[i];
      if (!key.is_string())
        suite_error(source, fmt::format("{}[{}]", field_name, i),
                    fmt::format("expected a metric key (a string), got {}", json_text(key)));
      keys.push_back(key.get<std::string>());
    }
  }
  std::vector<LeaderboardMetric> metrics;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string field = fmt::format("{}[{}]", field_name, i);
    const MetricInfo* info = find_metric(keys[i]);
    if (info == nullptr || info->group)
      suite_error(source, field,
                  fmt::format("'{}' is not a metric of summary.json (docs/metrics.md)", keys[i]));
    if (info->direction != MetricDirection::kLowerIsBetter &&
        info->direction != MetricDirection::kHigherIsBetter)
      suite_error(source, field,
                  fmt::format("'{}' cannot rank policies: it is {} (a ranking metric is lower or "
                              "higher is better)",
                              keys[i], direction_text(info->direction)));
    if (!seen.insert(keys[i]).second)
      suite_error(source, field, fmt::format("'{}' appears twice", keys[i]));
    metrics.push_back({keys[i], info, info->direction == MetricDirection::kLowerIsBetter});
  }
  return metrics;
}

// The value of `key` in the track, else in the suite (a track's own replaces the suite's);
// null when neither gives it. `field` is set to where it came from, for messages.
const Json& inherited(const Json& track, const Json& suite, const char* key,
                      const std::string& prefix, std::string& field) {
  static const Json kNull;
  if (const auto it = track.find(key); it != track.end()) {
    field = prefix + key;
    return *it;
  }
  field = key;
  if (const auto it = suite.find(key); it != suite.end()) return *it;
  return kNull;
}

// One track: `json` holds its traces (and in a suite with tracks, its own keys); `suite` the
// defaults. `prefix` is "" or "tracks[I]." for messages; `track_dir` is "" or "TRACK/".
LeaderboardTrack parse_track(const Json& json, const Json& suite, const std::string& source,
                             const std::string& base_dir, const std::string& prefix,
                             const std::string& track_dir) {
  LeaderboardTrack track;
  std::string policies_field;
  const Json& policies = inherited(json, suite, "policies", prefix, policies_field);
  if (!policies.is_array() || policies.empty())
    suite_error(source, policies_field, "expected a non-empty list of policies");
  Json resolved_policies = Json::array();
  for (const auto& entry : policies)
    resolved_policies.push_back(resolve_python_policy(entry, base_dir));
  std::string seeds_field, options_field, metrics_field;
  const Json& seeds = inherited(json, suite, "seeds", prefix, seeds_field);
  const Json& options = inherited(json, suite, "options", prefix, options_field);
  const Json& metrics = inherited(json, suite, "metrics", prefix, metrics_field);

  const auto traces = json.find("traces");
  if (traces == json.end() || !traces->is_array() || traces->empty())
    suite_error(source, prefix + "traces",
                "expected a non-empty list of {\"name\", \"path\", \"cluster\"}");
  std::set<std::string> names;
  for (std::size_t i = 0; i < traces->size(); ++i) {
    const Json& entry = (*traces)[i];
    const std::string field = fmt::format("{}traces[{}]", prefix, i);
    if (!entry.is_object())
      suite_error(source, field,
                  fmt::format("expected an object with \"path\" and \"cluster\", got {}",
                              json_text(entry)));
    check_keys(entry, {"cluster", "format", "load_scale", "name", "path"}, source, field);
    const std::string path = optional_string(entry, "path", source, field + ".path");
    if (path.empty()) suite_error(source, field + ".path", "missing (the trace file, a string)");
    const std::string cluster = optional_string(entry, "cluster", source, field + ".cluster");
    if (cluster.empty())
      suite_error(source, field + ".cluster", "missing (a cluster spec, as for run --cluster)");
    std::string name = optional_string(entry, "name", source, field + ".name");
    if (name.empty()) {
      name = fs::path(path).filename().string();
      name = name.substr(0, name.find('.'));
    }
    if (!valid_trace_name(name))
      suite_error(source, field + ".name",
                  fmt::format("'{}' is not a usable name (letters, digits, '.', '_', '-')", name));
    if (!names.insert(name).second)
      suite_error(source, field + ".name",
                  fmt::format("'{}' names two traces (a name must be unique)", name));

    Json trace = Json{{"path", path}};
    if (entry.contains("format")) trace["format"] = entry["format"];
    Json spec = Json::object();
    spec["policies"] = resolved_policies;
    spec["traces"] = Json::array({trace});
    spec["clusters"] = Json::array({cluster});
    if (entry.contains("load_scale")) spec["load_scales"] = Json::array({entry["load_scale"]});
    if (!seeds.is_null()) spec["seeds"] = seeds;
    if (!options.is_null()) spec["options"] = options;
    spec["reproducible"] = true;
    LeaderboardTrace board_trace;
    board_trace.name = name;
    board_trace.sweep_dir = track_dir + name;
    board_trace.shown = fmt::format("{} on {}", path, cluster);
    board_trace.sweep = parse_sweep_spec(spec, source, base_dir);
    track.traces.push_back(std::move(board_trace));
  }

  const SweepSpec& first = track.traces.front().sweep;
  for (const auto& variant : first.variants) track.policies.push_back(variant.label);
  track.seeds = first.seeds;
  track.resample = first.options.resample.text;
  if (track.seeds.size() > 1 && !first.options.seed_changes_results())
    suite_error(source, seeds_field,
                fmt::format("{} replicates, but nothing varies between them: every seed replays "
                            "the same workload; set options.resample (e.g. \"bootstrap\", "
                            "docs/leaderboard.md) or give one seed",
                            track.seeds.size()));
  track.metrics = parse_metrics(metrics, source, metrics_field);
  return track;
}

}  // namespace

LeaderboardSuite parse_leaderboard_suite(const Json& json, const std::string& source,
                                         const std::string& base_dir) {
  if (!json.is_object()) suite_error(source, "(top level)", "expected a JSON object");
  check_keys(json,
             {"description", "metrics", "name", "options", "plugins", "policies", "seeds", "traces",
              "tracks"},
             source, "");
  LeaderboardSuite suite;
  suite.source = source;
  suite.name = optional_string(json, "name", source, "name");
  if (suite.name.empty()) suite.name = fs::path(source).stem().string();
  if (const auto it = json.find("description"); it != json.end()) {
    if (!it->is_string()) suite_error(source, "description", "expected a string");
    suite.description = it->get<std::string>();
  }

  // Plug-ins first: the policies may name what they register.
  if (const auto it = json.find("plugins"); it != json.end()) {
    if (!it->is_array()) suite_error(source, "plugins", "expected a list of plug-in files");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const Json& file = (*it)[i];
      if (!file.is_string() || file.get<std::string>().empty())
        suite_error(source, fmt::format("plugins[{}]", i),
                    fmt::format("expected a plug-in file (a string), got {}", json_text(file)));
      load_plugin(resolve(file.get<std::string>(), base_dir));
    }
  }

  const auto tracks = json.find("tracks");
  if (tracks == json.end()) {
    suite.tracks.push_back(parse_track(json, Json::object(), source, base_dir, "", ""));
    return suite;
  }
  suite.has_tracks = true;
  if (json.contains("traces"))
    suite_error(source, "traces", "a suite with \"tracks\" gives the traces in each track");
  if (!tracks->is_array() || tracks->empty())
    suite_error(source, "tracks",
                "expected a non-empty list of {\"name\", \"traces\", ...} (docs/leaderboard.md)");
  std::set<std::string> names;
  for (std::size_t i = 0; i < tracks->size(); ++i) {
    const Json& entry = (*tracks)[i];
    const std::string field = fmt::format("tracks[{}]", i);
    if (!entry.is_object())
      suite_error(
          source, field,
          fmt::format("expected an object with \"name\" and \"traces\", got {}", json_text(entry)));
    check_keys(entry, {"description", "metrics", "name", "options", "policies", "seeds", "traces"},
               source, field);
    const std::string name = optional_string(entry, "name", source, field + ".name");
    if (name.empty()) suite_error(source, field + ".name", "missing (the track's name, a string)");
    if (!valid_trace_name(name))
      suite_error(source, field + ".name",
                  fmt::format("'{}' is not a usable name (letters, digits, '.', '_', '-')", name));
    if (!names.insert(name).second)
      suite_error(source, field + ".name",
                  fmt::format("'{}' names two tracks (a name must be unique)", name));
    LeaderboardTrack track = parse_track(entry, json, source, base_dir, field + ".", name + "/");
    track.name = name;
    if (const auto it = entry.find("description"); it != entry.end()) {
      if (!it->is_string()) suite_error(source, field + ".description", "expected a string");
      track.description = it->get<std::string>();
    }
    suite.tracks.push_back(std::move(track));
  }
  return suite;
}

}  // namespace schedlab
