// Interned strings: repeated trace values (user, tenant, gpu type, status) stored once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace schedlab {

using StringId = std::uint32_t;

// Id 0 is always the empty string. Ids are assigned in first-seen order (deterministic).
class StringPool {
 public:
  StringPool();
  StringId intern(std::string_view text);
  const std::string& str(StringId id) const { return strings_[id]; }
  std::size_t size() const { return strings_.size(); }

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, StringId> ids_;
};

}  // namespace schedlab
