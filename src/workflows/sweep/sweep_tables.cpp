// A sweep's tables: results.jsonl and results.csv, aggregate.jsonl and aggregate.csv (mean and
// 95% interval over seeds) from the cells' rows, and results read back.
#include "schedlab/sweep.hpp"

#include <set>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/metric_catalog.hpp"
#include "schedlab/output.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/trace.hpp"
#include "sweep_cell_text.hpp"

namespace schedlab {

using Json = nlohmann::ordered_json;

std::string json_scalar_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return format_number(value.get<double>());
  if (value.is_object()) {  // params
    std::string out;
    for (const auto& [k, v] : value.items())
      out += (out.empty() ? "" : ";") + k + "=" +
             (v.is_string() ? v.get<std::string>() : json_text(v));
    return out;
  }
  return json_text(value);
}

namespace {

// Appends ",text" (a CSV field after the first).
void append_field(std::string& out, const std::string& text) {
  out += ',';
  out += text;
}

// Leading columns of results.csv / aggregate.csv, from the cell definition.
const std::vector<std::string> kCellColumns = {"policy", "variant", "params",
                                               "trace",  "cluster", "load_scale"};

std::string results_csv(const std::vector<Json>& rows) {
  std::vector<std::string> metrics;
  std::set<std::string> known;
  for (const auto& row : rows) {
    if (!row.contains("summary")) continue;
    for (const auto& field : flatten_numeric(row["summary"]))
      if (known.insert(field.key).second) metrics.push_back(field.key);
  }
  std::string out = "cell";
  for (const auto& c : kCellColumns) append_field(out, c);
  out += ",seed,status,error";
  for (const auto& m : metrics) append_field(out, csv_field(m));
  out += '\n';
  for (const auto& row : rows) {
    out += format_number(row.at("cell").get<double>());
    for (const auto& c : kCellColumns) append_field(out, csv_field(json_scalar_text(row.at(c))));
    append_field(out, json_scalar_text(row.at("seed")));
    append_field(out, row.at("status").get<std::string>());
    append_field(
        out, row.contains("error") ? csv_field(row.at("error").get<std::string>()) : std::string());
    for (const auto& m : metrics) {
      std::optional<double> value;
      if (row.contains("summary")) value = numeric_at(row.at("summary"), m);
      append_field(out, value ? format_number(*value) : std::string());
    }
    out += '\n';
  }
  return out;
}

std::string aggregate_csv(const std::vector<SweepGroup>& groups) {
  std::vector<std::string> metrics;
  std::set<std::string> known;
  for (const auto& g : groups)
    for (const auto& m : g.metrics)
      if (known.insert(m).second) metrics.push_back(m);
  std::string out = "group";
  for (const auto& c : kCellColumns) append_field(out, c);
  out += ",n";
  for (const auto& m : metrics) {
    append_field(out, csv_field(fmt::format("{}.mean", m)));
    append_field(out, csv_field(fmt::format("{}.ci95", m)));
  }
  out += '\n';
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out += std::to_string(g);
    for (const auto& c : kCellColumns)
      append_field(out, csv_field(json_scalar_text(groups[g].definition.at(c))));
    append_field(out, std::to_string(groups[g].seeds.size()));
    for (const auto& m : metrics) {
      const auto it = groups[g].stats.find(m);
      const bool has = it != groups[g].stats.end();
      append_field(out, has ? format_number(round_to(it->second.mean, 6)) : std::string());
      append_field(out, has && it->second.n >= 2 ? format_number(round_to(it->second.ci95, 6))
                                                 : std::string());
    }
    out += '\n';
  }
  return out;
}

std::string aggregate_jsonl(const std::vector<SweepGroup>& groups) {
  std::string out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    Json row;
    row["group"] = g;
    for (const auto& [k, v] : groups[g].definition.items()) row[k] = v;
    row["n"] = groups[g].seeds.size();
    row["seeds"] = groups[g].seeds;
    Json metrics = Json::object();
    for (const auto& m : groups[g].metrics) {
      const MeanCi& s = groups[g].stats.at(m);
      Json entry;
      entry["mean"] = round_to(s.mean, 6);
      entry["ci95"] = s.n >= 2 ? Json(round_to(s.ci95, 6)) : Json(nullptr);
      entry["sd"] = s.n >= 2 ? Json(round_to(s.sd, 6)) : Json(nullptr);
      entry["min"] = round_to(s.min, 6);
      entry["max"] = round_to(s.max, 6);
      metrics[m] = std::move(entry);
    }
    row["metrics"] = std::move(metrics);
    out += json_text(row) + "\n";
  }
  return out;
}

}  // namespace

void write_sweep_tables(const std::string& out_dir, const Json& spec_json,
                        const std::vector<Json>& rows) {
  std::string results_jsonl;
  for (const auto& row : rows) results_jsonl += json_text(row) + "\n";
  const std::vector<SweepGroup> groups = aggregate_sweep(rows);
  write_files_atomically(out_dir, {{"sweep.json", json_text(spec_json, 2) + "\n"},
                                   {"results.csv", results_csv(rows)},
                                   {"results.jsonl", results_jsonl},
                                   {"aggregate.csv", aggregate_csv(groups)},
                                   {"aggregate.jsonl", aggregate_jsonl(groups)}});
}

std::vector<Json> read_sweep_results(const std::string& path) {
  const std::string text = read_file_bytes(path);
  std::vector<Json> rows;
  std::size_t line = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ++line;
    const std::string_view content = trim(std::string_view(text).substr(begin, end - begin));
    begin = end + 1;
    if (content.empty()) continue;
    Json row;
    try {
      row = parse_json_text<Json>(content, fmt::format("{}:{}", path, line));
    } catch (const nlohmann::json::parse_error&) {
      throw ConfigError(
          fmt::format("{}:{}: not a JSON object (expected one results row per line)", path, line));
    } catch (const nlohmann::json::exception& e) {
      throw ConfigError(fmt::format("{}:{}: not valid JSON: {}", path, line, json_error_text(e)));
    }
    for (const char* key : {"policy", "variant", "trace", "cluster"})
      if (!row.is_object() || !row.contains(key) || !row[key].is_string())
        throw ConfigError(
            fmt::format("{}:{}: results row without a string \"{}\"", path, line, key));
    auto require = [&](const char* key, const char* expected, bool (Json::*is_kind)() const) {
      const auto it = row.find(key);
      if (it == row.end() || !((*it).*is_kind)())
        throw ConfigError(fmt::format("{}:{}: \"{}\": expected {}, got {}", path, line, key,
                                      expected, it == row.end() ? "nothing" : json_text(*it)));
    };
    require("load_scale", "a number", &Json::is_number);
    require("seed", "a number", &Json::is_number);
    require("status", "a string", &Json::is_string);
    require("params", "an object", &Json::is_object);
    if (row["status"] == "ok" && (!row.contains("summary") || !row["summary"].is_object()))
      throw ConfigError(fmt::format("{}:{}: ok results row without a summary object", path, line));
    if (!row["seed"].is_number_unsigned())
      throw ConfigError(fmt::format("{}:{}: \"seed\": expected an integer >= 0, got {}", path, line,
                                    json_text(row["seed"])));
    if (const double load = row["load_scale"].get<double>(); !(load >= 0.001 && load <= 1000))
      throw ConfigError(
          fmt::format("{}:{}: \"load_scale\": expected a number in 0.001..1000, got {}", path, line,
                      json_text(row["load_scale"])));
    if (row.contains("cell") && !row["cell"].is_number_unsigned())
      throw ConfigError(fmt::format("{}:{}: \"cell\": expected an integer >= 0, got {}", path, line,
                                    json_text(row["cell"])));
    if (row.contains("dir") && !row["dir"].is_string())
      throw ConfigError(fmt::format("{}:{}: \"dir\": expected a cell directory (a string), got {}",
                                    path, line, json_text(row["dir"])));
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw ConfigError(fmt::format("{}: no results rows", path));
  return rows;
}

std::vector<SweepGroup> aggregate_sweep(const std::vector<Json>& rows) {
  std::vector<SweepGroup> groups;
  std::map<std::string, std::size_t> index;
  std::vector<std::map<std::string, std::vector<double>>> samples;
  for (const auto& row : rows) {
    Json definition;
    for (const char* key : {"policy", "variant", "params", "trace", "cluster", "load_scale"})
      definition[key] = row.at(key);
    const std::string key = json_text(definition);
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) {
      groups.push_back(SweepGroup{definition, {}, {}, {}});
      samples.emplace_back();
    }
    if (row.at("status") != "ok") continue;
    SweepGroup& group = groups[it->second];
    group.seeds.push_back(row.at("seed").get<std::uint64_t>());
    for (const auto& field : flatten_numeric(row.at("summary"))) {
      // The options echo holds the run's inputs (options.seed differs by design), not metrics.
      if (key_has_prefix(field.key, kOptionsGroup)) continue;
      auto& sample = samples[it->second][field.key];
      if (sample.empty()) group.metrics.push_back(field.key);
      sample.push_back(field.value);
    }
  }
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const auto& [key, sample] : samples[g]) groups[g].stats[key] = mean_ci95(sample);
  return groups;
}

}  // namespace schedlab
