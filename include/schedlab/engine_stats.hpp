// What the engine counts over a run (summary.json's "engine" section).
#pragma once

#include <cstdint>

#include "schedlab/types.hpp"

namespace schedlab {

struct EngineStats {
  std::uint64_t events = 0;    // events applied (stale ones excluded)
  std::uint64_t instants = 0;  // distinct times at which events were applied
  std::uint64_t policy_calls = 0;
  TimeMs first_submit_ms = 0;
  TimeMs last_finish_ms = 0;
};

}  // namespace schedlab
