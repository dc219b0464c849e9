// JSON text in and out of the program, for any nlohmann JSON type.
//
// Contract: input documents nested deeper than kMaxJsonDepth are input errors (code that walks
// a document recurses over its nesting, so a deeper one would exhaust the stack); output never
// fails on strings that are not UTF-8 (trace ids, names and file paths are bytes as given): each
// invalid byte is written as U+FFFD.
#pragma once

#include <string>
#include <string_view>

#include "schedlab/error.hpp"

namespace schedlab {

inline constexpr int kMaxJsonDepth = 512;

// Json::parse(text); a document nested deeper than kMaxJsonDepth throws ConfigError
// "SOURCE: JSON nested deeper than 512 levels". Other errors are Json::parse's.
template <class Json>
Json parse_json_text(std::string_view text, const std::string& source) {
  return Json::parse(
      text, [&source](int depth, typename Json::parse_event_t /*event*/, Json& /*parsed*/) {
        if (depth > kMaxJsonDepth)
          throw ConfigError(source + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                            " levels");
        return true;
      });
}

// value.dump(indent) with every byte that is not part of valid UTF-8 written as U+FFFD.
template <class Json>
std::string json_text(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace schedlab
