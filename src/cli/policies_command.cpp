#include <cstdio>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/trace.hpp"

namespace schedlab::cli {

Action add_policies_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "policies", "list policies, their parameters, placements and trace formats");
  return [cmd]() -> int {
    if (!cmd->parsed()) return -1;
    std::string out = "policies:\n";
    for (const auto& info : registered_policies()) {
      out += fmt::format("  {:<24} {}\n", info.name, info.summary);
      for (const auto& p : info.params)
        out +=
            fmt::format("      --param {:<24} {}\n", p.key + "=" + p.default_value, p.description);
    }
    out += "placements (--placement):\n";
    for (const auto& info : placement_strategies())
      out += fmt::format("  {:<24} {}\n", info.name, info.summary);
    out += "trace formats (--format):\n";
    for (const auto& format : trace_formats())
      out += fmt::format("  {:<24} {}\n", format.name, format.summary);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
  };
}

}  // namespace schedlab::cli
