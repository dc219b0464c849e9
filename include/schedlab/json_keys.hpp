// Unknown keys in JSON specs (cluster specs, sweep specs): found one way and worded one way,
// "unknown key (known: a, b, c)", with the known keys in the order the caller gives them.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace schedlab {

// "unknown key (known: a, b, c)"; callers prefix the file and the key's path.
std::string unknown_key_problem(const std::vector<std::string>& known);

// The first key of the JSON object `object` (in its own order) that `known` does not list;
// nullopt when every key is known or `object` is not an object.
template <class Json>
std::optional<std::string> first_unknown_key(const Json& object,
                                             const std::vector<std::string>& known) {
  if (!object.is_object()) return std::nullopt;
  for (const auto& item : object.items())
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) return item.key();
  return std::nullopt;
}

}  // namespace schedlab
