// The table of run options: each option's sweep-spec / summary.json key, command-line flag,
// kind and help, how it is set (the one place options are validated) and how it is echoed.
// The command line (run, compare, sweep flags), the sweep spec's "options" and the "options"
// echo of summary.json and sweep.json all go through it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "schedlab/run_options.hpp"

namespace schedlab {

enum class RunOptionKind : std::uint8_t {
  kText,     // a string (a name or a small syntax such as "factor:1.5")
  kFile,     // a path, read when set; relative paths are the caller's to resolve
  kSwitch,   // a boolean; its flag sets it to `switch_value`
  kSeconds,  // seconds, held as whole milliseconds
  kNumber,   // a plain number
  kInteger,  // an integer >= 0
};

// Where summary.json echoes an option.
enum class SummaryEcho : std::uint8_t {
  kAlways,
  kClusterModels,  // only when a cluster model is on (the extended summary)
  kWhenSet,        // only when given (shown_in_spec says so)
  kNotEchoed,
};

// A value as given: boolean, number (integers as exact doubles) or text.
using RunOptionValue = std::variant<bool, double, std::string>;

struct RunOptionInfo {
  std::string_view key;   // sweep spec "options" key and summary.json "options" key
  std::string_view flag;  // command-line flag
  RunOptionKind kind = RunOptionKind::kText;
  std::string_view help;
  bool switch_value = true;  // kSwitch: the value its flag sets
  bool in_spec = true;       // accepted in a sweep spec's "options" (seed is the seeds axis)
  SummaryEcho summary = SummaryEcho::kAlways;
  // Validates `value` and sets the option in `options`; throws ConfigError. Number and
  // seconds problems are worded without the option's name ("expected a number in 1..10"),
  // the others name their flag (they come from the option's own parser).
  void (*set)(RunOptions& options, const RunOptionValue& value) = nullptr;
  // The option's value as sweep.json and summary.json write it.
  nlohmann::ordered_json (*value)(const RunOptions& options) = nullptr;
  // Whether sweep.json writes the option (null: always); options left at their defaults are
  // left out so that specs without them keep their form.
  bool (*shown_in_spec)(const RunOptions& options) = nullptr;
};

// Every run option, in the order of the summary.json and sweep.json echoes.
std::span<const RunOptionInfo> run_option_table();
const RunOptionInfo* find_run_option(std::string_view key);

// Sets `option` from a JSON value (a sweep spec's "options", the Python module's keyword
// arguments): checks the value's type against the option's kind, then sets it. Throws
// ConfigError with the problem and the value, worded without the option's name ("expected a
// string, got 3"; "expected a number in 1..10, got 0").
void set_run_option_json(RunOptions& options, const RunOptionInfo& option,
                         const nlohmann::ordered_json& value);

// The option's value as the command line's help shows its default ("" for none).
std::string run_option_default_text(const RunOptionInfo& option);

}  // namespace schedlab
