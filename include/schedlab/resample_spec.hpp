// What --resample asks for (the methods: resample.hpp), held by RunOptions.
#pragma once

#include <cstdint>
#include <string>

#include "schedlab/types.hpp"

namespace schedlab {

enum class ResampleKind : std::uint8_t { kNone, kBootstrap, kJitter, kWindow };

struct ResampleSpec {
  ResampleKind kind = ResampleKind::kNone;
  TimeMs block_ms = TimeMs{24} * 3600 * 1000;  // bootstrap
  double jitter = 0.0;                         // jitter: X in (0, 1)
  TimeMs window_ms = 0;                        // window: D > 0
  std::string text = "none";                   // as given, for cell definitions and summaries
};

}  // namespace schedlab
