#include "schedlab/json_keys.hpp"

namespace schedlab {

std::string unknown_key_problem(const std::vector<std::string>& known) {
  std::string list;
  for (const auto& key : known) list += (list.empty() ? "" : ", ") + key;
  return "unknown key (known: " + list + ")";
}

}  // namespace schedlab
