// Error types and the always-on invariant check.
//
// Input errors (trace, cluster spec, options, policy parameters) are exceptions whose what()
// is the single line printed on stderr; the CLI maps them to exit code 2. Broken internal
// invariants are InvariantError (never caught as input errors).
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace schedlab {

// Bad user input: exit code 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Trace file problems; message is "FILE:LINE: message".
class TraceError : public InputError {
 public:
  TraceError(const std::string& file, std::size_t line, const std::string& message);
  TraceError(const std::string& file, const std::string& message);
};

// Cluster spec, option or parameter problems.
class ConfigError : public InputError {
 public:
  using InputError::InputError;
};

// An output could not be written (disk full, permissions, ...); the message names the file and
// the system's reason. Exit code 5.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A policy asked for something illegal (names policy, job and reason). A bug in the policy.
class PolicyError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The run cannot finish: pending jobs and nothing left to happen (exit code 3).
class StuckError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An internal invariant does not hold.
class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The message of a JSON library error without its "[json.exception...] " tag, e.g. "number
// overflow parsing '1e999'" for a number out of double's range.
std::string json_error_text(const std::exception& error);

[[noreturn]] void fail_invariant(const char* expr, const char* file, int line,
                                 const std::string& what);

}  // namespace schedlab

// Checked in every build type, including Release.
#define SCHEDLAB_ASSERT(cond, what)                                           \
  do {                                                                        \
    if (!(cond)) ::schedlab::fail_invariant(#cond, __FILE__, __LINE__, what); \
  } while (false)
