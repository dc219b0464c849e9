#include "schedlab/index_set.hpp"

#include <bit>

#include "schedlab/error.hpp"

namespace schedlab {

IndexSet::IndexSet(std::uint32_t capacity) : capacity_(capacity) {
  std::uint64_t bits = capacity;
  do {
    const std::uint64_t words = (bits + 63) / 64;
    levels_.emplace_back(words == 0 ? 1 : words, 0);
    bits = words;
  } while (bits > 1);
}

bool IndexSet::contains(std::uint32_t index) const {
  if (index >= capacity_) return false;
  return (levels_[0][index >> 6] >> (index & 63)) & 1u;
}

void IndexSet::insert(std::uint32_t index) {
  SCHEDLAB_ASSERT(index < capacity_, "IndexSet index in range");
  if (contains(index)) return;
  ++size_;
  std::uint64_t i = index;
  for (auto& level : levels_) {
    const bool was_empty = level[i >> 6] == 0;
    level[i >> 6] |= std::uint64_t{1} << (i & 63);
    if (!was_empty) break;
    i >>= 6;
  }
}

void IndexSet::erase(std::uint32_t index) {
  if (!contains(index)) return;
  --size_;
  std::uint64_t i = index;
  for (auto& level : levels_) {
    level[i >> 6] &= ~(std::uint64_t{1} << (i & 63));
    if (level[i >> 6] != 0) break;
    i >>= 6;
  }
}

std::uint32_t IndexSet::next(std::uint32_t from) const {
  if (from >= capacity_ || size_ == 0) return npos;
  // Climb until a word holds a set bit at or after the position, then descend to the lowest.
  std::uint64_t pos = from;
  std::size_t level = 0;
  for (;;) {
    if (level >= levels_.size()) return npos;
    const auto& words = levels_[level];
    const std::uint64_t word_index = pos >> 6;
    if (word_index >= words.size()) return npos;
    const std::uint64_t masked = words[word_index] & (~std::uint64_t{0} << (pos & 63));
    if (masked != 0) {
      pos = (word_index << 6) | static_cast<std::uint64_t>(std::countr_zero(masked));
      break;
    }
    pos = word_index + 1;
    ++level;
  }
  while (level > 0) {
    --level;
    const std::uint64_t word = levels_[level][pos];
    pos = (pos << 6) | static_cast<std::uint64_t>(std::countr_zero(word));
  }
  return pos < capacity_ ? static_cast<std::uint32_t>(pos) : npos;
}

}  // namespace schedlab
