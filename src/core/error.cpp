#include "schedlab/error.hpp"

#include <fmt/format.h>

namespace schedlab {

TraceError::TraceError(const std::string& file, std::size_t line, const std::string& message)
    : InputError(fmt::format("{}:{}: {}", file, line, message)) {}

TraceError::TraceError(const std::string& file, const std::string& message)
    : InputError(fmt::format("{}: {}", file, message)) {}

std::string json_error_text(const std::exception& error) {
  const std::string what = error.what();
  const auto tag_end = what.find("] ");
  return what.starts_with("[json.exception") && tag_end != std::string::npos
             ? what.substr(tag_end + 2)
             : what;
}

void fail_invariant(const char* expr, const char* file, int line, const std::string& what) {
  throw InvariantError(
      fmt::format("internal invariant violated at {}:{}: {} ({})", file, line, what, expr));
}

}  // namespace schedlab
