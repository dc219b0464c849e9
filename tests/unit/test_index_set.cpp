#include <catch2/catch.hpp>

#include <set>

#include "schedlab/index_set.hpp"
#include "schedlab/random.hpp"

using namespace schedlab;

TEST_CASE("index set agrees with std::set under random operations", "[index_set]") {
  for (std::uint32_t capacity : {1u, 63u, 64u, 65u, 4096u, 4097u, 300'000u}) {
    IndexSet set(capacity);
    std::set<std::uint32_t> reference;
    Rng rng(capacity);
    for (int step = 0; step < 5000; ++step) {
      const auto i = static_cast<std::uint32_t>(rng.uniform_int(0, capacity - 1));
      if (rng.uniform() < 0.6) {
        set.insert(i);
        reference.insert(i);
      } else {
        set.erase(i);
        reference.erase(i);
      }
      const auto from = static_cast<std::uint32_t>(rng.uniform_int(0, capacity - 1));
      const auto it = reference.lower_bound(from);
      REQUIRE(set.next(from) == (it == reference.end() ? IndexSet::npos : *it));
      REQUIRE(set.size() == reference.size());
    }
    CHECK(set.first() == (reference.empty() ? IndexSet::npos : *reference.begin()));
    CHECK(set.next(capacity) == IndexSet::npos);
  }
}
