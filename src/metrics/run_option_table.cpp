#include "schedlab/run_option_table.hpp"

#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "schedlab/carbon.hpp"
#include "schedlab/error.hpp"
#include "schedlab/failure_model.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/resample.hpp"
#include "schedlab/shared_placement.hpp"
#include "schedlab/tenants.hpp"

namespace schedlab {

namespace {

using Json = nlohmann::ordered_json;

const std::string& text_of(const RunOptionValue& value) {
  SCHEDLAB_ASSERT(std::holds_alternative<std::string>(value), "a text option gets text");
  return std::get<std::string>(value);
}
bool bool_of(const RunOptionValue& value) {
  SCHEDLAB_ASSERT(std::holds_alternative<bool>(value), "a switch gets a boolean");
  return std::get<bool>(value);
}
double number_of(const RunOptionValue& value) {
  SCHEDLAB_ASSERT(std::holds_alternative<double>(value), "a number option gets a number");
  return std::get<double>(value);
}
double seconds_of(TimeMs ms) {
  return static_cast<double>(ms) / 1000.0;
}

// A file option held as the object read from it (FailureTrace, CarbonSeries: each keeps its
// path); "" leaves it unset.
template <class Loaded, std::shared_ptr<const Loaded> RunOptions::*kMember,
          Loaded (*kLoad)(const std::string&)>
void set_file(RunOptions& o, const RunOptionValue& v) {
  if (!text_of(v).empty()) o.*kMember = std::make_shared<const Loaded>(kLoad(text_of(v)));
}
template <class Loaded, std::shared_ptr<const Loaded> RunOptions::*kMember>
Json file_value(const RunOptions& o) {
  return Json(o.*kMember ? (o.*kMember)->path : "");
}
template <class Loaded, std::shared_ptr<const Loaded> RunOptions::*kMember>
bool file_set(const RunOptions& o) {
  return o.*kMember != nullptr;
}

constexpr double kMinPue = 1.0;
constexpr double kMaxPue = 10.0;

// Unnamed lambdas convert to the table's function pointers.
const RunOptionInfo kTable[] = {
    {"placement", "--placement", RunOptionKind::kText, "placement strategy", true, true,
     SummaryEcho::kAlways,
     [](RunOptions& o, const RunOptionValue& v) {
       make_placement(text_of(v));  // throws for an unknown strategy
       o.placement = text_of(v);
     },
     [](const RunOptions& o) { return Json(o.placement); }},
    {"gpu_sharing", "--gpu-sharing", RunOptionKind::kText,
     "share GPUs and count CPU and memory, placing such jobs by: off | random-fit | best-fit | "
     "dot-product | gpu-packing | gpu-clustering | fgd",
     true, true, SummaryEcho::kWhenSet,
     [](RunOptions& o, const RunOptionValue& v) {
       if (text_of(v) != "off") parse_shared_placement(text_of(v));  // throws for unknown names
       o.gpu_sharing = text_of(v);
     },
     [](const RunOptions& o) { return Json(o.gpu_sharing); },
     [](const RunOptions& o) { return o.gpu_sharing_on(); }},
    {"mig_reconfig_s", "--mig-reconfig", RunOptionKind::kSeconds,
     "seconds a MIG layout change takes; the job that asked for it makes no progress meanwhile "
     "(with --gpu-sharing)",
     true, true, SummaryEcho::kWhenSet,
     [](RunOptions& o, const RunOptionValue& v) {
       o.mig_reconfig_ms = option_seconds_ms(number_of(v), true);
     },
     [](const RunOptions& o) { return Json(seconds_of(o.mig_reconfig_ms)); },
     [](const RunOptions& o) { return o.mig_reconfig_ms != 0; }},
    {"estimate", "--estimate", RunOptionKind::kText,
     "walltime for jobs without one: exact | factor:X | column", true, true, SummaryEcho::kAlways,
     [](RunOptions& o, const RunOptionValue& v) { parse_estimate(text_of(v), o); },
     [](const RunOptions& o) { return Json(estimate_name(o)); }},
    {"walltime_kill", "--no-walltime-kill", RunOptionKind::kSwitch,
     "let jobs run past their walltime instead of killing them", false, true, SummaryEcho::kAlways,
     [](RunOptions& o, const RunOptionValue& v) { o.walltime_kill = bool_of(v); },
     [](const RunOptions& o) { return Json(o.walltime_kill); }},
    {"checkpoint_interval_s", "--checkpoint-interval", RunOptionKind::kSeconds,
     "seconds of work between checkpoints (0: checkpoint at preemption)", true, true,
     SummaryEcho::kAlways,
     [](RunOptions& o, const RunOptionValue& v) {
       o.checkpoint_interval_ms = option_seconds_ms(number_of(v), true);
     },
     [](const RunOptions& o) { return Json(seconds_of(o.checkpoint_interval_ms)); }},
    {"restart_overhead_s", "--restart-overhead", RunOptionKind::kSeconds,
     "seconds charged at each restart before progress resumes", true, true, SummaryEcho::kAlways,
     [](RunOptions& o, const RunOptionValue& v) {
       o.restart_overhead_ms = option_seconds_ms(number_of(v), true);
     },
     [](const RunOptions& o) { return Json(seconds_of(o.restart_overhead_ms)); }},
    {"interval_s", "--interval", RunOptionKind::kSeconds, "timeseries.csv row width in seconds",
     true, true, SummaryEcho::kNotEchoed,
     [](RunOptions& o, const RunOptionValue& v) {
       o.timeseries_interval_ms = option_seconds_ms(number_of(v), false);
     },
     [](const RunOptions& o) { return Json(seconds_of(o.timeseries_interval_ms)); }},
    {"seed", "--seed", RunOptionKind::kInteger, "seed of the run's random source", true, false,
     SummaryEcho::kAlways,
     [](RunOptions& o, const RunOptionValue& v) {
       const double seed = number_of(v);
       if (!(seed >= 0 && seed < 0x1p64 && seed == std::floor(seed)))
         throw ConfigError("expected an integer >= 0");
       o.seed = static_cast<std::uint64_t>(seed);
     },
     [](const RunOptions& o) { return Json(o.seed); }},
    {"resample", "--resample", RunOptionKind::kText,
     "vary the workload with the seed: none | bootstrap[:BLOCK] | jitter:X | window:D", true, true,
     SummaryEcho::kWhenSet,
     [](RunOptions& o, const RunOptionValue& v) { o.resample = parse_resample(text_of(v)); },
     [](const RunOptions& o) { return Json(o.resample.text); },
     [](const RunOptions& o) { return o.resample.kind != ResampleKind::kNone; }},
    // Cluster models (docs/cluster.md).
    {"speed_model", "--speed-model", RunOptionKind::kText,
     "placement-dependent speed: off | gpu (GPU type speed) | comm (link slowdown) | full", true,
     true, SummaryEcho::kClusterModels,
     [](RunOptions& o, const RunOptionValue& v) { o.speed_model = parse_speed_model(text_of(v)); },
     [](const RunOptions& o) { return Json(speed_model_name(o.speed_model)); },
     [](const RunOptions& o) { return o.speed_model != SpeedModel::kOff; }},
    {"failures", "--failures", RunOptionKind::kText,
     "node failures: rate=R[,repair=H][,seed=S] (R per 1000 node-days, H hours)", true, true,
     SummaryEcho::kClusterModels,
     [](RunOptions& o, const RunOptionValue& v) {
       if (!text_of(v).empty()) parse_failures_option(text_of(v), o);
     },
     [](const RunOptions& o) {
       return Json(o.failure_rate_per_1000_node_days > 0 ? o.failures_text : "off");
     },
     [](const RunOptions& o) { return !o.failures_text.empty(); }},
    {"failure_trace", "--failure-trace", RunOptionKind::kFile,
     "node failures from a CSV file: node, down_time, up_time", true, true,
     SummaryEcho::kClusterModels,
     set_file<FailureTrace, &RunOptions::failure_trace, load_failure_trace>,
     file_value<FailureTrace, &RunOptions::failure_trace>,
     file_set<FailureTrace, &RunOptions::failure_trace>},
    {"node_power", "--node-power", RunOptionKind::kSwitch,
     "count node base power (on) and off power in energy", true, true, SummaryEcho::kClusterModels,
     [](RunOptions& o, const RunOptionValue& v) { o.node_power = bool_of(v); },
     [](const RunOptions& o) { return Json(o.node_power); },
     [](const RunOptions& o) { return o.node_power; }},
    // The only check of the option's range: the engine relies on it.
    {"pue", "--pue", RunOptionKind::kNumber,
     "facility power / IT power, 1..10 (default: the cluster spec's, else 1.0)", true, true,
     SummaryEcho::kClusterModels,
     [](RunOptions& o, const RunOptionValue& v) {
       const double pue = number_of(v);
       if (!(pue >= kMinPue && pue <= kMaxPue))
         throw ConfigError(fmt::format("expected a number in {}..{}", kMinPue, kMaxPue));
       o.pue = pue;
     },
     [](const RunOptions& o) { return Json(o.pue); },
     [](const RunOptions& o) { return o.pue > 0; }},
    {"power_off_idle_s", "--power-off-idle", RunOptionKind::kSeconds,
     "turn a node off after this many seconds idle (0: never)", true, true,
     SummaryEcho::kClusterModels,
     [](RunOptions& o, const RunOptionValue& v) {
       o.power_off_idle_ms = option_seconds_ms(number_of(v), true);
     },
     [](const RunOptions& o) { return Json(seconds_of(o.power_off_idle_ms)); },
     [](const RunOptions& o) { return o.power_off_idle_ms > 0; }},
    {"boot_time_s", "--boot-time", RunOptionKind::kSeconds, "seconds a node takes to power on",
     true, true, SummaryEcho::kClusterModels,
     [](RunOptions& o, const RunOptionValue& v) {
       o.boot_time_ms = option_seconds_ms(number_of(v), false);
     },
     [](const RunOptions& o) { return Json(seconds_of(o.boot_time_ms)); },
     [](const RunOptions& o) {
       return o.power_off_idle_ms > 0 || o.boot_time_ms != RunOptions{}.boot_time_ms;
     }},
    {"carbon", "--carbon", RunOptionKind::kFile,
     "grid carbon intensity CSV (time, gco2_per_kwh) for emissions_kg", true, true,
     SummaryEcho::kClusterModels, set_file<CarbonSeries, &RunOptions::carbon, load_carbon_series>,
     file_value<CarbonSeries, &RunOptions::carbon>, file_set<CarbonSeries, &RunOptions::carbon>},
    // Tenants (docs/tenants.md). A sweep spec resolves the file against its own directory.
    {"tenants", "--tenants", RunOptionKind::kText,
     "tenants and their quotas: equal | proportional | philly-vc:FILE | a JSON file", true, true,
     SummaryEcho::kWhenSet,
     [](RunOptions& o, const RunOptionValue& v) {
       o.tenants = std::make_shared<const TenantsSpec>(load_tenants_spec(text_of(v)));
     },
     [](const RunOptions& o) { return Json(o.tenants ? o.tenants->text : ""); },
     [](const RunOptions& o) { return o.tenants != nullptr; }},
};

}  // namespace

std::span<const RunOptionInfo> run_option_table() {
  return kTable;
}

const RunOptionInfo* find_run_option(std::string_view key) {
  for (const auto& option : kTable)
    if (option.key == key) return &option;
  return nullptr;
}

std::string run_option_default_text(const RunOptionInfo& option) {
  const RunOptions defaults;
  switch (option.kind) {
    case RunOptionKind::kText: {
      // Shown only where it reads back ("off" is no failure spec).
      std::string text = option.value(defaults).get<std::string>();
      RunOptions parsed;
      try {
        option.set(parsed, text);
      } catch (const InputError&) {
        return "";
      }
      return text;
    }
    case RunOptionKind::kSeconds: return fmt::format("{}", option.value(defaults).get<double>());
    case RunOptionKind::kInteger:
      return fmt::format("{}", option.value(defaults).get<std::uint64_t>());
    case RunOptionKind::kFile:
    case RunOptionKind::kSwitch:
    case RunOptionKind::kNumber: return "";
  }
  return "";
}

void set_run_option_json(RunOptions& options, const RunOptionInfo& option, const Json& value) {
  RunOptionValue given;
  switch (option.kind) {
    case RunOptionKind::kText:
    case RunOptionKind::kFile:
      if (!value.is_string())
        throw ConfigError(fmt::format("expected a string, got {}", json_text(value)));
      given = value.get<std::string>();
      break;
    case RunOptionKind::kSwitch:
      if (!value.is_boolean())
        throw ConfigError(fmt::format("expected true or false, got {}", json_text(value)));
      given = value.get<bool>();
      break;
    case RunOptionKind::kSeconds:
      if (!value.is_number())
        throw ConfigError(fmt::format("expected seconds, got {}", json_text(value)));
      given = value.get<double>();
      break;
    case RunOptionKind::kNumber:
    case RunOptionKind::kInteger:
      // Not a number: refused by set, which words what it expects.
      given = value.is_number() ? value.get<double>() : std::numeric_limits<double>::quiet_NaN();
      break;
  }
  try {
    option.set(options, given);
  } catch (const InputError& e) {
    // Number problems are worded without the value: it follows.
    const bool number = option.kind == RunOptionKind::kSeconds ||
                        option.kind == RunOptionKind::kNumber ||
                        option.kind == RunOptionKind::kInteger;
    if (!number) throw;
    throw ConfigError(fmt::format("{}, got {}", e.what(), json_text(value)));
  }
}

}  // namespace schedlab
