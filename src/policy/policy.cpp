#include "schedlab/policy.hpp"

#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/names.hpp"
#include "schedlab/trace_filter.hpp"

namespace schedlab {

bool Decisions::try_start(JobIndex job) {
  auto placement = find_placement(job);
  if (!placement) return false;
  start(job, std::move(*placement));
  return true;
}

void Changes::fresh_entries(const SchedContext& ctx, std::vector<QueueEntry>& out) const {
  const std::size_t first = out.size();
  for (JobIndex j : arrived) out.emplace_back(ctx.job(j).submit_ms(), j);
  for (JobIndex j : requeued) out.emplace_back(ctx.job(j).submit_ms(), j);
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

namespace {

// Guards the policy registry once start-up is over: policy sources register while other threads
// (sweep cells, Python threads) look policies up.
std::shared_mutex& registry_mutex() {
  static std::shared_mutex mutex;
  return mutex;
}

std::map<std::string, PolicySource>& policy_sources() {
  static std::map<std::string, PolicySource> sources;
  return sources;
}

std::optional<PolicyInfo> find_registered(const std::string& name) {
  const std::shared_lock lock(registry_mutex());
  const PolicyInfo* info = Registry<PolicyInfo>::instance().find_loose(name);
  return info != nullptr ? std::optional<PolicyInfo>(*info) : std::nullopt;
}

}  // namespace

std::vector<PolicyInfo> registered_policies() {
  const std::shared_lock lock(registry_mutex());
  return Registry<PolicyInfo>::instance().entries();
}

void set_policy_source(const std::string& prefix, PolicySource source) {
  const std::unique_lock lock(registry_mutex());
  policy_sources()[prefix] = std::move(source);
}

void register_policy(PolicyInfo info) {
  const std::unique_lock lock(registry_mutex());
  Registry<PolicyInfo>::instance().add_or_replace(std::move(info));
}

std::optional<PolicyInfo> find_policy(const std::string& name) {
  if (auto info = find_registered(name)) return info;
  PolicySource source;
  {
    const std::shared_lock lock(registry_mutex());
    for (const auto& [prefix, candidate] : policy_sources())
      if (name.starts_with(prefix)) source = candidate;
  }
  if (!source) {
    if (name.starts_with("py:"))
      throw ConfigError(
          fmt::format("--policy {}: this schedlab has no Python bridge (it was built with "
                      "SCHEDLAB_PYTHON=OFF); build it with Python (docs/python.md)",
                      name));
    return std::nullopt;
  }
  source(name);
  return find_registered(name);
}

std::string canonical_policy_name(const std::string& name) {
  const auto info = find_registered(name);
  return info ? info->name : name;
}

bool policy_uses_tenants(const std::string& name) {
  const auto info = find_policy(name);
  return info && info->uses_tenants;
}

ResolvedPolicy resolve_policy(const std::string& name,
                              const std::map<std::string, std::string>& params) {
  std::optional<PolicyInfo> info = find_policy(name);
  if (!info) {
    std::vector<std::string> names;
    std::string list;
    {
      const std::shared_lock lock(registry_mutex());
      names = Registry<PolicyInfo>::instance().name_list();
      list = Registry<PolicyInfo>::instance().names();
    }
    throw ConfigError(fmt::format("--policy: unknown policy '{}'{} (known: {})", name,
                                  did_you_mean(name, names), list));
  }
  for (const auto& [key, value] : params) {
    const std::string& wanted = key;
    const bool declared = std::any_of(info->params.begin(), info->params.end(),
                                      [&](const PolicyParamInfo& p) { return p.key == wanted; });
    if (declared) continue;
    std::string keys;
    std::vector<std::string> key_list;
    for (const auto& p : info->params) {
      keys += (keys.empty() ? "" : ", ") + p.key;
      key_list.push_back(p.key);
    }
    throw ConfigError(
        fmt::format("--param {}={}: policy '{}' has no parameter '{}'{} (parameters: {})", key,
                    value, name, key, did_you_mean(key, key_list), keys.empty() ? "none" : keys));
  }
  return ResolvedPolicy{std::move(*info), params};
}

std::unique_ptr<Policy> ResolvedPolicy::make() const {
  return info.make(PolicyParams(info.name, params));
}

std::map<std::string, std::string> ResolvedPolicy::params_in_force() const {
  std::map<std::string, std::string> out;
  for (const PolicyParamInfo& declared : info.params) {
    const auto given = params.find(declared.key);
    if (given == params.end()) {
      out.emplace(declared.key, declared.default_value);
      continue;
    }
    const std::string& value = given->second;
    const bool time = declared.unit == "s" || declared.unit.empty();
    const auto ms = !time || parse_seconds_ms(value) ? std::nullopt : parse_time_with_unit(value);
    out.emplace(declared.key, ms ? fmt::format("{}", static_cast<double>(*ms) / 1000.0) : value);
  }
  return out;
}

std::unique_ptr<Policy> make_policy(const std::string& name,
                                    const std::map<std::string, std::string>& params) {
  return resolve_policy(name, params).make();
}

std::map<std::string, std::string> parse_param_list(const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError(fmt::format("--param '{}': expected key=value", item));
    const std::string key(trim(std::string_view(item).substr(0, eq)));
    const std::string value(trim(std::string_view(item).substr(eq + 1)));
    if (!out.emplace(key, value).second)
      throw ConfigError(fmt::format("--param '{}': key '{}' given twice", item, key));
  }
  return out;
}

std::int64_t PolicyParams::get_int(const std::string& key, std::int64_t fallback) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const auto value = parse_int(it->second);
  if (!value)
    throw ConfigError(
        fmt::format("--param {}={}: policy '{}' expects an integer", key, it->second, policy_));
  return *value;
}

double PolicyParams::get_double(const std::string& key, double fallback) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const auto value = parse_double(it->second);
  if (!value)
    throw ConfigError(
        fmt::format("--param {}={}: policy '{}' expects a number", key, it->second, policy_));
  return *value;
}

bool PolicyParams::get_bool(const std::string& key, bool fallback) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (it->second == "true" || it->second == "1") return true;
  if (it->second == "false" || it->second == "0") return false;
  throw ConfigError(
      fmt::format("--param {}={}: policy '{}' expects true or false", key, it->second, policy_));
}

std::string PolicyParams::get_string(const std::string& key, const std::string& fallback) const {
  const auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

}  // namespace schedlab
