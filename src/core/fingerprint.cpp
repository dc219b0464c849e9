#include "schedlab/fingerprint.hpp"

#include <fmt/format.h>

namespace schedlab {

std::string Fingerprint::hex() const {
  return fmt::format("{:016x}", hash_);
}

}  // namespace schedlab
