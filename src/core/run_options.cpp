#include "schedlab/run_options.hpp"

#include <cmath>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"

namespace schedlab {

TimeMs option_seconds_ms(double seconds, bool allow_zero) {
  const auto value = seconds_to_ms(seconds);
  if (!value && !std::isnan(seconds) && seconds > 0)
    throw ConfigError(fmt::format("too large: at most {}", kMaxTimeText));
  if (!value || *value < 0 || (!allow_zero && *value == 0))
    throw ConfigError(fmt::format("expected seconds {}", allow_zero ? ">= 0" : "> 0"));
  if (*value == 0 && seconds > 0) throw ConfigError("below the clock's resolution of 1 ms");
  return *value;
}

void parse_estimate(const std::string& text, RunOptions& options) {
  if (text == "exact") {
    options.estimate = EstimateMode::kExact;
    options.estimate_factor = 1.0;
    return;
  }
  if (text == "column") {
    options.estimate = EstimateMode::kColumn;
    return;
  }
  if (text.starts_with("factor:")) {
    const auto factor = parse_double(std::string_view(text).substr(7));
    if (!factor || *factor <= 0)
      throw ConfigError(fmt::format("--estimate '{}': factor must be a number > 0", text));
    options.estimate = EstimateMode::kFactor;
    options.estimate_factor = *factor;
    return;
  }
  throw ConfigError(fmt::format("--estimate '{}': expected exact, factor:X or column", text));
}

std::string estimate_name(const RunOptions& options) {
  switch (options.estimate) {
    case EstimateMode::kExact: return "exact";
    case EstimateMode::kColumn: return "column";
    case EstimateMode::kFactor: return fmt::format("factor:{}", options.estimate_factor);
  }
  return "exact";
}

SpeedModel parse_speed_model(const std::string& text) {
  if (text == "off") return SpeedModel::kOff;
  if (text == "gpu") return SpeedModel::kGpu;
  if (text == "comm") return SpeedModel::kComm;
  if (text == "full") return SpeedModel::kFull;
  throw ConfigError(fmt::format("--speed-model '{}': expected off, gpu, comm or full", text));
}

const char* speed_model_name(SpeedModel model) {
  switch (model) {
    case SpeedModel::kOff: return "off";
    case SpeedModel::kGpu: return "gpu";
    case SpeedModel::kComm: return "comm";
    case SpeedModel::kFull: return "full";
  }
  return "off";
}

}  // namespace schedlab
