#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/trace_filter.hpp"

namespace schedlab::cli {

namespace {

// A seconds option's value: a number of seconds (its range is checked where the option is
// applied) or a time of at least 0 with a unit. Throws ConfigError naming the flag and value.
double seconds_of_option(const std::string& flag, const std::string& text) {
  if (const auto seconds = parse_double(text)) return *seconds;
  if (const auto ms = parse_time_with_unit(text)) return static_cast<double>(*ms) / kMsPerSecond;
  if (time_with_unit_too_large(text))
    throw ConfigError(fmt::format("{} '{}': beyond the clock's limit", flag, printable_text(text)));
  throw ConfigError(
      fmt::format("{} '{}': expected seconds or a time with a unit (90s, 30m, 12h, 2d)", flag,
                  printable_text(text)));
}

}  // namespace

void add_run_option_flags(CLI::App& command, std::map<std::string, RunOptionValue>& given,
                          bool spec_options_only) {
  for (const auto& option : run_option_table()) {
    if (spec_options_only && !option.in_spec) continue;
    const std::string key(option.key);
    const std::string flag(option.flag);
    const std::string help(option.help);
    CLI::Option* added = nullptr;
    switch (option.kind) {
      case RunOptionKind::kSwitch:
        added = command.add_flag_callback(
            flag, [&given, key, value = option.switch_value] { given[key] = value; }, help);
        break;
      case RunOptionKind::kText:
      case RunOptionKind::kFile:
        added = command.add_option_function<std::string>(
            flag, [&given, key](const std::string& value) { given[key] = value; }, help);
        break;
      case RunOptionKind::kSeconds:
        // Seconds, or a time with a unit as --filter takes it (90s, 30m, 12h, 2d).
        added = command
                    .add_option_function<std::string>(
                        flag,
                        [&given, key, flag](const std::string& value) {
                          try {
                            given[key] = seconds_of_option(flag, value);
                          } catch (const ConfigError& e) {
                            throw CLI::ValidationError(e.what());  // exit 2, one line
                          }
                        },
                        help + " (or with a unit: 90s, 30m, 12h, 2d)")
                    ->type_name("TIME");
        break;
      case RunOptionKind::kNumber:
        added = command.add_option_function<double>(
            flag, [&given, key](double value) { given[key] = value; }, help);
        break;
      case RunOptionKind::kInteger:
        added = command.add_option_function<std::uint64_t>(
            flag, [&given, key](std::uint64_t value) { given[key] = static_cast<double>(value); },
            help);
        break;
    }
    if (const std::string shown = run_option_default_text(option); !shown.empty())
      added->default_str(shown);
  }
}

void add_simulation_options(CLI::App& command, SimulationOptions& o) {
  command.add_option("-t,--trace", o.trace, "job trace file (.gz is read directly)")->required();
  command.add_option("--format", o.format, "trace format (auto decides from the content)")
      ->capture_default_str();
  command
      .add_option("-c,--cluster", o.cluster,
                  "cluster: NODESxGPUS[:TYPE][,...] (e.g. 64x8:A100,16x8:H100) or a JSON file")
      ->required();
  command.add_flag("--reproducible", o.reproducible,
                   "write engine.wall_s as 0 so repeated runs are byte-identical");
  add_filter_option(command, o.filters);
  add_run_option_flags(command, o.given, false);
}

RunOptions to_run_options(const SimulationOptions& o) {
  RunOptions run;
  const auto given = [&o](std::string_view key) { return o.given.find(std::string(key)); };
  if (given("failures") != o.given.end() && given("failure_trace") != o.given.end())
    throw ConfigError("--failures and --failure-trace cannot be combined");
  for (const auto& option : run_option_table()) {
    const auto it = given(option.key);
    if (it == o.given.end()) continue;
    try {
      option.set(run, it->second);
    } catch (const ConfigError& e) {
      // Number problems are worded without the flag: name it and the value.
      if (option.kind != RunOptionKind::kSeconds && option.kind != RunOptionKind::kNumber &&
          option.kind != RunOptionKind::kInteger)
        throw;
      throw ConfigError(
          fmt::format("{} {}: {}", option.flag, std::get<double>(it->second), e.what()));
    }
  }
  return run;
}

}  // namespace schedlab::cli
