#include "schedlab/policy.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/names.hpp"

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

std::vector<PolicyInfo> registered_policies() {
  return Registry<PolicyInfo>::instance().entries();
}

std::string canonical_policy_name(const std::string& name) {
  const PolicyInfo* info = Registry<PolicyInfo>::instance().find_loose(name);
  return info != nullptr ? info->name : name;
}

bool policy_uses_tenants(const std::string& name) {
  const PolicyInfo* info = Registry<PolicyInfo>::instance().find_loose(name);
  return info != nullptr && info->uses_tenants;
}

std::unique_ptr<Policy> make_policy(const std::string& name,
                                    const std::map<std::string, std::string>& params) {
  const auto& registry = Registry<PolicyInfo>::instance();
  const PolicyInfo* info = registry.find_loose(name);
  if (info == nullptr)
    throw ConfigError(fmt::format("--policy: unknown policy '{}'{} (known: {})", name,
                                  did_you_mean(name, registry.name_list()), registry.names()));
  for (const auto& [key, value] : params) {
    const std::string& wanted = key;
    const bool declared = std::any_of(info->params.begin(), info->params.end(),
                                      [&](const PolicyParamInfo& p) { return p.key == wanted; });
    if (declared) continue;
    std::string keys;
    for (const auto& p : info->params) keys += (keys.empty() ? "" : ", ") + p.key;
    throw ConfigError(
        fmt::format("--param {}={}: policy '{}' has no parameter '{}' (parameters: {})", key, value,
                    name, key, keys.empty() ? "none" : keys));
  }
  return info->make(PolicyParams(info->name, params));
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
