#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/plugin.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/trace.hpp"

namespace schedlab::cli {

Action add_policies_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "policies", "list policies, their parameters, placements and trace formats");
  auto python_files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--python", *python_files,
                  "also list the policy classes of a Python file, as py:FILE.py:CLASS "
                  "(repeatable; docs/python.md)");
  return [cmd, python_files]() -> int {
    if (!cmd->parsed()) return -1;
    // "py:FILE.py" has the Python bridge register every policy class of the file.
    for (const std::string& file : *python_files) find_policy("py:" + file);
    std::map<std::string, std::string> plugin_of;  // component name -> plug-in file
    for (const LoadedPlugin& plugin : loaded_plugins()) {
      for (const std::string& name : plugin.policies) plugin_of[name] = plugin.path;
      for (const std::string& name : plugin.placements) plugin_of[name] = plugin.path;
    }
    const auto origin = [&](const std::string& name) {
      const auto it = plugin_of.find(name);
      if (name.starts_with("py:")) return std::string(" [python]");
      return it == plugin_of.end() ? std::string() : fmt::format(" [plug-in {}]", it->second);
    };
    std::string out = "policies:\n";
    for (const auto& info : registered_policies()) {
      out += fmt::format("  {:<24} {}{}\n", info.name, info.summary, origin(info.name));
      for (const auto& p : info.params)
        out +=
            fmt::format("      --param {:<24} {}\n", p.key + "=" + p.default_value, p.description);
    }
    out += "placements (--placement):\n";
    for (const auto& info : placement_strategies())
      out += fmt::format("  {:<24} {}{}\n", info.name, info.summary, origin(info.name));
    out += "trace formats (--format):\n";
    for (const auto& format : trace_formats())
      out += fmt::format("  {:<24} {}\n", format.name, format.summary);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
  };
}

}  // namespace schedlab::cli
