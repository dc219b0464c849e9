// schedlab command line: dispatches to the subcommands and maps errors to exit codes.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <string>
#include <vector>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "huge_pages.hpp"
#include "schedlab/error.hpp"
#include "schedlab/error_kind.hpp"
#include "schedlab/names.hpp"
#include "schedlab/plugin.hpp"
#include "schedlab/version.hpp"
#include "stderr_lines.hpp"

namespace {

bool is_one_of(const std::string& name, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
}

// "; did you mean 'X'?" for a misspelled subcommand (the first word) or a long option of the
// subcommand given; "" when nothing is close.
std::string typo_hint(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return "";
  const std::string first = argv[1];
  std::vector<std::string> subcommands;
  const CLI::App* chosen = nullptr;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    subcommands.push_back(sub->get_name());
    if (sub->get_name() == first) chosen = sub;
  }
  if (chosen == nullptr)
    return first.starts_with("-") ? "" : schedlab::did_you_mean(first, subcommands);
  std::vector<std::string> options;
  for (const CLI::Option* option : chosen->get_options())
    for (const std::string& name : option->get_lnames()) options.push_back("--" + name);
  for (int i = 2; i < argc; ++i) {
    std::string word = argv[i];
    if (!word.starts_with("--")) continue;
    word = word.substr(0, word.find('='));
    if (std::find(options.begin(), options.end(), word) != options.end()) continue;
    if (std::string hint = schedlab::did_you_mean(word, options); !hint.empty()) return hint;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace schedlab;
  using namespace schedlab::cli;
  reexec_with_huge_pages(argv);
  // Past `ulimit -f` a write fails with EFBIG (exit 5, temporaries removed) instead of killing.
  std::signal(SIGXFSZ, SIG_IGN);
  auto logger = spdlog::stderr_logger_st("schedlab");
  logger->set_formatter(stderr_log_formatter());
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"schedlab: discrete-event GPU cluster scheduling simulator"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "schedlab " SCHEDLAB_VERSION_STRING);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "also log informational messages on stderr");
  std::vector<Action> actions = {add_run_command(app), add_policies_command(app),
                                 add_sweep_command(app), add_report_command(app),
                                 add_check_command(app)};
  for (auto add : {add_validate_command, add_convert_command, add_gen_command})
    actions.push_back(add(app));
  actions.push_back(add_compare_command(app));
  actions.push_back(add_check_policy_command(app));
  actions.push_back(add_leaderboard_command(app));
  actions.push_back(add_inflate_command(app));
  // --plugin FILE on the commands that name policies; loaded before the command runs.
  std::vector<std::string> plugins;
  for (CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; }))
    if (is_one_of(command->get_name(),
                  {"run", "compare", "sweep", "leaderboard", "policies", "check-policy"}))
      command->add_option("--plugin", plugins,
                          "load policies from a plug-in library (repeatable; "
                          "docs/writing-policies.md)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error_line("schedlab: ", e.what() + typo_hint(app, argc, argv));
    return kExitInput;
  }
  if (verbose) spdlog::set_level(spdlog::level::info);
  try {
    for (const std::string& plugin : plugins) load_plugin(plugin);
    for (const auto& action : actions) {
      const int code = action();
      if (code >= 0) return code;
    }
    return kExitInput;
  } catch (...) {
    const ClassifiedError error = classify_exception(std::current_exception());
    switch (error.kind) {
      case ErrorKind::kInput: print_error_line("", error.what); break;
      case ErrorKind::kPolicy: print_policy_error("schedlab: policy error: ", error.what); break;
      case ErrorKind::kOutOfMemory: std::fprintf(stderr, "schedlab: out of memory\n"); break;
      case ErrorKind::kInternal: print_error_line("schedlab: internal error: ", error.what); break;
      case ErrorKind::kStuck:
      case ErrorKind::kInvariant:
      case ErrorKind::kOutput: print_error_line("schedlab: ", error.what); break;
    }
    return exit_code_of(error.kind);
  }
}
