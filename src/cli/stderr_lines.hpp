// The error and warning lines schedlab prints on stderr.
//
// Contract: every message goes through printable_text (include/schedlab/printable.hpp) on its
// way to stderr, so values echoed from input (trace fields, file names, options) never reach the
// terminal as control characters and one message is exactly one line. The one exception is the
// Python traceback of a policy error, printed as the lines after it (each escaped on its own).
#pragma once

#include <cstdio>
#include <memory>
#include <string_view>

#include <spdlog/formatter.h>

namespace schedlab::cli {

// The formatter of every logger that writes to stderr: "schedlab: LEVEL: message".
std::unique_ptr<spdlog::formatter> stderr_log_formatter();

// Prints `prefix`, the message and a newline on stderr.
void print_error_line(const char* prefix, std::string_view message);

// Prints a policy error: `prefix` and the message up to a Python traceback ("\nTraceback (most
// recent call last):\n") as one line, then the traceback's lines.
void print_policy_error(const char* prefix, std::string_view message);

}  // namespace schedlab::cli
