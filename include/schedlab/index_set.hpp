// A set of small integers [0, capacity) with O(log64 n) insert, erase and ordered search.
// Used to find "the lowest-index node with exactly k free GPUs" without scanning nodes.
#pragma once

#include <cstdint>
#include <vector>

namespace schedlab {

class IndexSet {
 public:
  static constexpr std::uint32_t npos = 0xFFFFFFFFu;

  explicit IndexSet(std::uint32_t capacity = 0);

  void insert(std::uint32_t index);
  void erase(std::uint32_t index);
  bool contains(std::uint32_t index) const;
  std::uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::uint32_t capacity() const { return capacity_; }
  // Smallest member >= from, or npos.
  std::uint32_t next(std::uint32_t from) const;
  std::uint32_t first() const { return next(0); }

 private:
  std::uint32_t capacity_ = 0;
  std::uint32_t size_ = 0;
  // levels_[0] holds one bit per index; levels_[l+1] one bit per non-empty word of levels_[l].
  std::vector<std::vector<std::uint64_t>> levels_;
};

}  // namespace schedlab
