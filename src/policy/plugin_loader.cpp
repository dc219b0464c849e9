// load_plugin: checks a plug-in's ABI record in the file, then loads it with the dynamic loader
// and reports what it registered (include/schedlab/plugin.hpp).
#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/plugin.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/registry.hpp"

namespace schedlab {

namespace {

std::vector<LoadedPlugin>& plugins() {
  static std::vector<LoadedPlugin> loaded;  // copied out: push_back may move the records
  return loaded;
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw ConfigError(fmt::format("--plugin {}: {}", path, why));
}

// The file's bytes; throws ConfigError when it cannot be read.
std::string read_bytes(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    refuse(path, error ? error.message() : "not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, std::strerror(errno));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The ABI record in `bytes` ("schedlab-plugin-abi:...;", up to its NUL), or "" when none.
std::string abi_record(const std::string& bytes) {
  const std::string_view tag = SCHEDLAB_PLUGIN_ABI_TAG "version=";
  const std::size_t at = bytes.find(tag);
  if (at == std::string::npos) return "";
  const std::size_t end = bytes.find('\0', at);
  return bytes.substr(
      at, std::min<std::size_t>(end == std::string::npos ? bytes.size() : end, at + 256) - at);
}

// The value of `key` in an ABI record ("key=value;"), or "?" when absent.
std::string record_field(const std::string& record, const std::string& key) {
  const std::size_t at = record.find(key + "=");
  if (at == std::string::npos) return "?";
  const std::size_t from = at + key.size() + 1;
  const std::size_t end = record.find(';', from);
  return record.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

std::vector<std::string> added_names(const std::vector<std::string>& before,
                                     const std::vector<std::string>& after) {
  std::vector<std::string> added;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(added));
  return added;
}

}  // namespace

const std::vector<LoadedPlugin>& loaded_plugins() {
  return plugins();
}

LoadedPlugin load_plugin(const std::string& path) {
  static std::mutex loading;
  const std::lock_guard lock(loading);
  const std::string record = abi_record(read_bytes(path));
  if (record.empty())
    refuse(path, "not a schedlab plug-in (it holds no " SCHEDLAB_PLUGIN_ABI_TAG
                 " record; build it with schedlab_add_policy, docs/writing-policies.md)");
  const std::string expected = SCHEDLAB_PLUGIN_ABI_RECORD;
  if (record != expected) {
    const std::string version = record_field(record, "version");
    const std::string cxx11_abi = record_field(record, "cxx11-abi");
    if (version != SCHEDLAB_VERSION_STRING)
      refuse(path, fmt::format("built against schedlab {}, this is schedlab {}: rebuild the "
                               "plug-in against this version",
                               version, SCHEDLAB_VERSION_STRING));
    refuse(path, fmt::format("built with the C++ library ABI cxx11-abi={}, this schedlab uses "
                             "cxx11-abi={}: rebuild the plug-in with the same compiler settings",
                             cxx11_abi, SCHEDLAB_PLUGIN_CXX11_ABI));
  }
  std::error_code error;
  const std::string canonical = std::filesystem::canonical(path, error).string();
  for (const LoadedPlugin& loaded : plugins())
    if (loaded.canonical_path == canonical) return loaded;

  auto& policies = Registry<PolicyInfo>::instance();
  auto& placements = Registry<PlacementInfo>::instance();
  const std::vector<std::string> policies_before = policies.name_list();
  const std::vector<std::string> placements_before = placements.name_list();
  policies.collect_taken_names(true);
  placements.collect_taken_names(true);
  // dlopen needs a slash to take a path rather than search the library path.
  const std::string load_path = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(load_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  policies.collect_taken_names(false);
  placements.collect_taken_names(false);
  const std::vector<std::string> taken_policies = policies.take_taken_names();
  const std::vector<std::string> taken_placements = placements.take_taken_names();
  if (handle == nullptr) {
    const char* why = dlerror();
    refuse(path, fmt::format("cannot load: {}", why != nullptr ? why : "unknown error"));
  }
  if (!taken_policies.empty())
    refuse(path, fmt::format("registers policy '{}', a name that is taken", taken_policies[0]));
  if (!taken_placements.empty())
    refuse(path,
           fmt::format("registers placement '{}', a name that is taken", taken_placements[0]));
  LoadedPlugin plugin;
  plugin.path = path;
  plugin.canonical_path = canonical;
  plugin.policies = added_names(policies_before, policies.name_list());
  plugin.placements = added_names(placements_before, placements.name_list());
  plugins().push_back(plugin);
  return plugin;
}

}  // namespace schedlab
