// The kinds of failure the program reports, and everything that depends on the kind: the exit
// code, the kind's name in sweep messages, the prefix of a failed sweep cell's error text, and
// the exception rebuilt from a kind and a message. Every mapping from an exception to one of
// these goes through classify_exception().
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace schedlab {

// Process exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRegression = 1;  // check: a metric regressed; check-policy: broken
inline constexpr int kExitInput = 2;       // bad input: trace, cluster, options, parameters
inline constexpr int kExitStuck = 3;       // jobs queued with nothing left to happen
inline constexpr int kExitInternal = 4;    // a policy bug or a broken internal invariant
inline constexpr int kExitOutput = 5;      // an output could not be written (disk full, ...)

enum class ErrorKind {
  kInput,        // InputError (TraceError, ConfigError): exit 2
  kStuck,        // StuckError: exit 3
  kPolicy,       // PolicyError: exit 4
  kInvariant,    // InvariantError: exit 4
  kOutOfMemory,  // std::bad_alloc: exit 4
  kInternal,     // anything else: exit 4
  kOutput,       // OutputError: exit 5
};

struct ClassifiedError {
  ErrorKind kind = ErrorKind::kInternal;
  std::string what;  // the exception's message ("unknown exception" for a non-std one)
};

// The kind and message of a thrown exception (never throws; `failure` must not be null).
ClassifiedError classify_exception(const std::exception_ptr& failure);

int exit_code_of(ErrorKind kind);

// "input", "stuck", "policy", "invariant", "out-of-memory", "internal", "output"; and back.
std::string_view error_kind_name(ErrorKind kind);
std::optional<ErrorKind> error_kind_named(std::string_view name);

// A failed sweep cell's error text: "input error: ...", "stuck: ...", "output error: ...", or
// "internal error: ..." (policy, invariant, memory and other failures alike); and the exit code
// such a text stands for (kExitInternal for a text of no known prefix).
std::string failure_text(const ClassifiedError& error);
int exit_code_of_failure_text(std::string_view text);

// Throws the exception of `kind` carrying `what` (ConfigError for input, std::runtime_error for
// internal and out-of-memory failures).
[[noreturn]] void throw_error(ErrorKind kind, const std::string& what);

}  // namespace schedlab
