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

// Reads a document's shape in one pass (nlohmann's SAX interface): false at a key given twice
// in one object, at nesting near kMaxJsonDepth or at a syntax error, the cases on which
// parse_json_text rules with its callback.
template <class Json>
class PlainShape {
 public:
  bool null() { return true; }
  bool boolean(bool /*value*/) { return true; }
  bool number_integer(typename Json::number_integer_t /*value*/) { return true; }
  bool number_unsigned(typename Json::number_unsigned_t /*value*/) { return true; }
  bool number_float(typename Json::number_float_t /*value*/,
                    const typename Json::string_t& /*text*/) {
    return true;
  }
  bool string(typename Json::string_t& /*value*/) { return true; }
  bool binary(typename Json::binary_t& /*value*/) { return true; }
  bool start_object(std::size_t /*size*/) {
    keys_.emplace_back();
    return ++depth_ + 8 < kMaxJsonDepth;
  }
  bool start_array(std::size_t /*size*/) { return ++depth_ + 8 < kMaxJsonDepth; }
  bool end_object() {
    keys_.pop_back();
    --depth_;
    return true;
  }
  bool end_array() {
    --depth_;
    return true;
  }
  bool key(typename Json::string_t& name) { return keys_.back().insert(name).second; }
  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const Exception& /*error*/) {
    return false;
  }

 private:
  int depth_ = 0;
  std::vector<std::unordered_set<std::string>> keys_;  // of each open object
};

}  // namespace json_text_detail

// Json::parse(text); a document nested deeper than kMaxJsonDepth throws ConfigError
// "SOURCE: JSON nested deeper than 512 levels", and a key that appears twice in one object
// throws ConfigError "SOURCE:LINE: key "K" appears twice in one object". Other errors are
// Json::parse's.
// Time near-linear in the text: a document of plain shape is read by one shape pass and a plain
// parse; only one the shape pass rejects goes through the parser's callback (which rescans an
// array's elements after each element object: quadratic in a long array of objects).
template <class Json>
Json parse_json_text(std::string_view text, const std::string& source) {
  json_text_detail::PlainShape<Json> shape;
  if (Json::sax_parse(text, &shape)) return Json::parse(text);
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
