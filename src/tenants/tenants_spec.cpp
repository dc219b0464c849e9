// Reading the --tenants argument: a JSON file of entries, `equal`, `proportional` or
// `philly-vc:FILE` (docs/tenants.md).
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_keys.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/tenants.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

namespace {

using Json = nlohmann::json;

// Quotas and limits stay far below int64 so sums over many tenants cannot overflow.
constexpr std::int64_t kMaxQuotaGpus = 1'000'000'000'000;

[[noreturn]] void spec_error(const std::string& source, const std::string& path,
                             const std::string& problem) {
  throw ConfigError(fmt::format("{}: {}: {}", source, path, problem));
}

std::int64_t gpu_count(const Json& value, const std::string& source, const std::string& path) {
  const bool whole =
      value.is_number_integer() || (value.is_number_float() && std::isfinite(value.get<double>()) &&
                                    value.get<double>() == std::floor(value.get<double>()));
  if (!whole || value.get<double>() < 0 || value.get<double>() > kMaxQuotaGpus)
    spec_error(source, path,
               fmt::format("expected a GPU count (an integer in 0..{}), got {}", kMaxQuotaGpus,
                           json_text(value)));
  return static_cast<std::int64_t>(value.get<double>());
}

TenantEntry parse_entry(const Json& item, const std::string& source, const std::string& path) {
  if (!item.is_object()) spec_error(source, path, "expected an object");
  static const std::vector<std::string> kKnown = {
      "name", "quota", "weight", "borrowing_limit", "lending_limit", "cohort"};
  if (const auto key = first_unknown_key(item, kKnown))
    spec_error(source, path + "." + *key, unknown_key_problem(kKnown));
  TenantEntry entry;
  if (!item.contains("name") || !item["name"].is_string() ||
      item["name"].get<std::string>().empty())
    spec_error(source, path + ".name",
               fmt::format("expected a tenant name, got {}",
                           item.contains("name") ? json_text(item["name"]) : "nothing"));
  entry.name = item["name"].get<std::string>();
  if (!item.contains("quota")) spec_error(source, path + ".quota", "missing (a GPU count)");
  const Json& quota = item["quota"];
  if (quota.is_object()) {
    if (quota.empty())
      spec_error(source, path + ".quota", "expected GPUs per GPU type, got an empty object");
    for (const auto& [type, gpus] : quota.items()) {
      const std::int64_t count = gpu_count(gpus, source, path + ".quota." + type);
      entry.quota_by_type.emplace_back(type, count);
      entry.quota_gpus += count;
    }
  } else {
    entry.quota_gpus = gpu_count(quota, source, path + ".quota");
  }
  if (item.contains("weight")) {
    const Json& weight = item["weight"];
    if (!weight.is_number() || !std::isfinite(weight.get<double>()) || weight.get<double>() < 0 ||
        weight.get<double>() > 1e12)
      spec_error(source, path + ".weight",
                 fmt::format("expected a number in 0..1e12, got {}", json_text(weight)));
    entry.weight = weight.get<double>();
  }
  if (item.contains("borrowing_limit"))
    entry.borrowing_limit_gpus =
        gpu_count(item["borrowing_limit"], source, path + ".borrowing_limit");
  if (item.contains("lending_limit"))
    entry.lending_limit_gpus = gpu_count(item["lending_limit"], source, path + ".lending_limit");
  if (item.contains("cohort")) {
    if (!item["cohort"].is_string() || item["cohort"].get<std::string>().empty())
      spec_error(source, path + ".cohort",
                 fmt::format("expected a cohort name, got {}", json_text(item["cohort"])));
    entry.cohort = item["cohort"].get<std::string>();
  }
  return entry;
}

TenantsSpec load_file(const std::string& path) {
  TenantsSpec spec;
  spec.kind = TenantsSpec::Kind::kFile;
  spec.text = path;
  spec.path = path;
  Json doc;
  try {
    doc = parse_json_text<Json>(read_file_bytes(path), path);
  } catch (const Json::parse_error& e) {
    throw ConfigError(fmt::format("{}: invalid JSON at byte {}: {}", path, e.byte, e.what()));
  } catch (const Json::exception& e) {
    throw ConfigError(fmt::format("{}: invalid JSON: {}", path, json_error_text(e)));
  }
  if (!doc.is_object()) spec_error(path, "$", "expected an object with \"tenants\"");
  static const std::vector<std::string> kKnown = {"tenants", "overcommit"};
  if (const auto key = first_unknown_key(doc, kKnown))
    spec_error(path, "$." + *key, unknown_key_problem(kKnown));
  if (doc.contains("overcommit")) {
    if (!doc["overcommit"].is_boolean())
      spec_error(path, "$.overcommit",
                 fmt::format("expected true or false, got {}", json_text(doc["overcommit"])));
    spec.overcommit = doc["overcommit"].get<bool>();
  }
  if (!doc.contains("tenants") || !doc["tenants"].is_array() || doc["tenants"].empty())
    spec_error(path, "$.tenants", "expected a non-empty array of tenants");
  std::set<std::string> names;
  for (std::size_t i = 0; i < doc["tenants"].size(); ++i) {
    const std::string at = fmt::format("$.tenants[{}]", i);
    TenantEntry entry = parse_entry(doc["tenants"][i], path, at);
    if (!names.insert(entry.name).second)
      spec_error(path, at + ".name", fmt::format("tenant '{}' is named twice", entry.name));
    if (!spec.entries.empty() &&
        spec.entries.front().quota_by_type.empty() != entry.quota_by_type.empty())
      spec_error(path, at + ".quota",
                 "quotas per GPU type must be given for every tenant or for none");
    spec.entries.push_back(std::move(entry));
  }
  return spec;
}

// Philly's philly_vc.csv: `vc, node num`; quotas are held in nodes until the cluster is known.
TenantsSpec load_philly_vc(const std::string& text, const std::string& path) {
  TenantsSpec spec;
  spec.kind = TenantsSpec::Kind::kPhillyVc;
  spec.text = text;
  spec.path = path;
  const std::string bytes = read_file_bytes(path);
  CsvReader csv(bytes, path);
  std::vector<std::string_view> fields;
  if (!csv.next_row(fields)) throw TraceError(path, 1, "empty file: expected a header row");
  if (fields.size() < 2 || trim(fields[0]) != "vc" || trim(fields[1]) != "node num")
    throw TraceError(path, csv.line(), "expected the header \"vc,node num\"");
  std::set<std::string> names;
  while (csv.next_row(fields)) {
    if (fields.size() == 1 && trim(fields[0]).empty()) continue;
    if (fields.size() != 2)
      throw TraceError(path, csv.line(),
                       fmt::format("expected 2 fields (vc, node num), got {}", fields.size()));
    const std::string name(trim(fields[0]));
    if (name.empty()) throw TraceError(path, csv.line(), "vc: expected a virtual cluster name");
    const std::string_view nodes_text = trim(fields[1]);
    const auto nodes = parse_int(nodes_text);
    if (!nodes || *nodes < 0 || *nodes > 10'000'000)
      throw TraceError(
          path, csv.line(),
          fmt::format("node num: expected an integer in 0..10000000, got '{}'", nodes_text));
    if (!names.insert(name).second)
      throw TraceError(path, csv.line(), fmt::format("vc: '{}' is listed twice", name));
    TenantEntry entry;
    entry.name = name;
    entry.quota_gpus = *nodes;  // nodes; resolve_tenants multiplies by the node size
    spec.entries.push_back(std::move(entry));
  }
  if (spec.entries.empty()) throw TraceError(path, "no virtual clusters listed");
  return spec;
}

}  // namespace

TenantsSpec load_tenants_spec(const std::string& text) {
  if (text == "equal" || text == "proportional") {
    TenantsSpec spec;
    spec.kind = text == "equal" ? TenantsSpec::Kind::kEqual : TenantsSpec::Kind::kProportional;
    spec.text = text;
    return spec;
  }
  constexpr std::string_view kPhillyPrefix = "philly-vc:";
  if (text.starts_with(kPhillyPrefix)) {
    const std::string path = text.substr(kPhillyPrefix.size());
    if (path.empty())
      throw ConfigError(fmt::format("--tenants '{}': expected a file after 'philly-vc:'", text));
    return load_philly_vc(text, path);
  }
  if (text.empty())
    throw ConfigError("--tenants: expected equal, proportional, philly-vc:FILE or a JSON file");
  return load_file(text);
}

std::string rewrite_tenants_spec_file(
    const std::string& text, const std::function<std::string(const std::string&)>& rewrite) {
  if (text.empty() || text == "equal" || text == "proportional") return text;
  constexpr std::string_view kPhillyPrefix = "philly-vc:";
  if (text.starts_with(kPhillyPrefix)) {
    const std::string path = text.substr(kPhillyPrefix.size());
    return path.empty() ? text : std::string(kPhillyPrefix) + rewrite(path);
  }
  return rewrite(text);
}

}  // namespace schedlab
