// The logger of commands whose simulations run on worker threads (sweep, leaderboard).
#pragma once

#include <memory>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "stderr_lines.hpp"

namespace schedlab::cli {

// While it lives, the default logger is a thread-safe one with the same level and the
// "schedlab: LEVEL: message" pattern; the previous logger is restored after.
class SweepLogging {
 public:
  SweepLogging() : previous_(spdlog::default_logger()) {
    auto logger = spdlog::get("schedlab-sweep");
    if (!logger) logger = spdlog::stderr_logger_mt("schedlab-sweep");
    logger->set_formatter(stderr_log_formatter());
    logger->set_level(previous_->level());
    spdlog::set_default_logger(logger);
  }
  ~SweepLogging() { spdlog::set_default_logger(previous_); }
  SweepLogging(const SweepLogging&) = delete;
  SweepLogging& operator=(const SweepLogging&) = delete;

 private:
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace schedlab::cli
