// Fingerprints of inputs: 64-bit FNV-1a, for noticing that a trace or file changed (not a
// cryptographic hash). The value depends only on the bytes added, in order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace schedlab {

class Fingerprint {
 public:
  void add_bytes(std::string_view bytes) {
    for (const char c : bytes) add_byte(static_cast<unsigned char>(c));
  }
  // The value's 8 bytes, least significant first.
  void add_u64(std::uint64_t value) {
    for (int i = 0; i < 8; ++i) add_byte(static_cast<unsigned char>((value >> (8 * i)) & 0xff));
  }
  std::uint64_t value() const { return hash_; }
  // 16 lowercase hex digits.
  std::string hex() const;

 private:
  void add_byte(unsigned char byte) {
    hash_ ^= byte;
    hash_ *= 0x100000001b3ULL;
  }
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// Fingerprint of a byte string, as one number.
inline std::uint64_t fingerprint_of(std::string_view bytes) {
  Fingerprint f;
  f.add_bytes(bytes);
  return f.value();
}

}  // namespace schedlab
