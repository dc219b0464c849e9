#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "policy_cards.hpp"
#include "schedlab/board_standing.hpp"
#include "schedlab/output.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/plugin.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/policy_card.hpp"
#include "schedlab/trace.hpp"

namespace schedlab::cli {

namespace {

struct PolicyCardArgs {
  std::string card;         // --card NAME
  std::string cards_dir;    // --write-cards DIR
  std::string leaderboard;  // --leaderboard PATH
  bool no_contract_check = false;
};

// --card and --write-cards; kExitOk, or -1 when neither was given.
int print_or_write_cards(const PolicyCardArgs& args) {
  if (args.card.empty() && args.cards_dir.empty()) {
    if (!args.leaderboard.empty() || args.no_contract_check)
      throw ConfigError("--leaderboard and --no-contract-check go with --card or --write-cards");
    return -1;
  }
  std::optional<BoardStanding> board;
  if (!args.leaderboard.empty()) board = read_board_standing(args.leaderboard);
  const bool check = !args.no_contract_check;
  if (!args.card.empty()) {
    const std::optional<PolicyInfo> info = find_policy(args.card);
    if (!info)
      throw ConfigError(
          fmt::format("--card {}: no such policy (schedlab policies lists them)", args.card));
    const std::string text = policy_card(*info, board, check);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (!args.cards_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(args.cards_dir, error);
    for (const PolicyInfo& info : registered_policies())
      write_file_atomically(
          (std::filesystem::path(args.cards_dir) / policy_card_file_name(info.name)).string(),
          policy_card(info, board, check));
  }
  return kExitOk;
}

}  // namespace

Action add_policies_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "policies", "list policies, their parameters, placements and trace formats");
  auto python_files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--python", *python_files,
                  "also list the policy classes of a Python file, as py:FILE.py:CLASS "
                  "(repeatable; docs/python.md)");
  auto card_args = std::make_shared<PolicyCardArgs>();
  cmd->add_option("--card", card_args->card,
                  "print the policy card of NAME in Markdown instead of the list: algorithm, "
                  "parameters, citation, what it needs, its contract check (run now) and its "
                  "standing on --leaderboard (docs/policies.md, \"Policy cards\")");
  cmd->add_option("--write-cards", card_args->cards_dir,
                  "write the card of every registered policy to DIR/NAME.md (how "
                  "docs/policies/ is made: --write-cards docs/policies --leaderboard "
                  "docs/leaderboard.md)");
  cmd->add_option("--leaderboard", card_args->leaderboard,
                  "the board whose overall standings the cards show: a leaderboard.md, the "
                  "directory schedlab leaderboard wrote, or docs/leaderboard.md");
  cmd->add_flag("--no-contract-check", card_args->no_contract_check,
                "cards name the check-policy command instead of running it");
  return [cmd, python_files, card_args]() -> int {
    if (!cmd->parsed()) return -1;
    // "py:FILE.py" has the Python bridge register every policy class of the file.
    for (const std::string& file : *python_files) find_policy("py:" + file);
    if (const int code = print_or_write_cards(*card_args); code >= 0) return code;
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
