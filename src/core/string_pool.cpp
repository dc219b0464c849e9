#include "schedlab/string_pool.hpp"

namespace schedlab {

StringPool::StringPool() {
  strings_.emplace_back();
  ids_.emplace(std::string(), 0);
}

StringId StringPool::intern(std::string_view text) {
  auto it = ids_.find(std::string(text));
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(text);
  ids_.emplace(strings_.back(), id);
  return id;
}

}  // namespace schedlab
