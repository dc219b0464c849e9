// Wall-clock lap timer for the -v progress log.
#pragma once

#include <chrono>

namespace schedlab::cli {

class Stopwatch {
 public:
  // Seconds since construction or the previous lap.
  double lap_s() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return seconds;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace schedlab::cli
