// JSON text in and out of the program, for any nlohmann JSON type.
//
// Contract: input documents nested deeper than kMaxJsonDepth are input errors (code that walks
// a document recurses over its nesting, so a deeper one would exhaust the stack), and so is a
// key that appears twice in one object (the parser would keep one in silence); output never
// fails on strings that are not UTF-8 (trace ids, names and file paths are bytes as given): each
// invalid byte is written as U+FFFD.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "schedlab/error.hpp"

namespace schedlab {

inline constexpr int kMaxJsonDepth = 512;

namespace json_text_detail {

// The line of the `occurrence`-th (from 1) `"key"` followed by ':' in `text`; 0 if not found
// (a key written with escapes).
inline std::size_t key_line(std::string_view text, const std::string& key, std::size_t occurrence) {
  const std::string quoted = "\"" + key + "\"";
  std::size_t seen = 0;
  for (std::size_t pos = text.find(quoted); pos != std::string_view::npos;
       pos = text.find(quoted, pos + 1)) {
    std::size_t after = pos + quoted.size();
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t' ||
                                   text[after] == '\n' || text[after] == '\r'))
      ++after;
    if (after >= text.size() || text[after] != ':') continue;
    if (++seen == occurrence)
      return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + pos, '\n'));
  }
  return 0;
}

}  // namespace json_text_detail

// Json::parse(text); a document nested deeper than kMaxJsonDepth throws ConfigError
// "SOURCE: JSON nested deeper than 512 levels", and a key that appears twice in one object
// throws ConfigError "SOURCE:LINE: key "K" appears twice in one object". Other errors are
// Json::parse's.
template <class Json>
Json parse_json_text(std::string_view text, const std::string& source) {
  std::vector<std::unordered_set<std::string>> open_objects;  // keys of each enclosing object
  std::unordered_map<std::string, std::size_t> key_counts;    // occurrences so far, for the line
  return Json::parse(text, [&](int depth, typename Json::parse_event_t event, Json& parsed) {
    if (depth > kMaxJsonDepth)
      throw ConfigError(source + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                        " levels");
    using Event = typename Json::parse_event_t;
    if (event == Event::object_start) {
      open_objects.emplace_back();
    } else if (event == Event::object_end) {
      if (!open_objects.empty()) open_objects.pop_back();
    } else if (event == Event::key && !open_objects.empty()) {
      const auto& key = parsed.template get_ref<const typename Json::string_t&>();
      const std::size_t occurrence = ++key_counts[key];
      if (!open_objects.back().insert(key).second) {
        const std::size_t line = json_text_detail::key_line(text, key, occurrence);
        throw ConfigError(source + (line > 0 ? ":" + std::to_string(line) : "") + ": key \"" + key +
                          "\" appears twice in one object (each key may appear once)");
      }
    }
    return true;
  });
}

// value.dump(indent) with every byte that is not part of valid UTF-8 written as U+FFFD.
template <class Json>
std::string json_text(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace schedlab
