// AvailabilityProfile against a brute-force model (free GPUs per millisecond over a window),
// and FailedSizes.
#include <catch2/catch.hpp>

#include <vector>

#include "schedlab/availability_profile.hpp"
#include "schedlab/policy_kit.hpp"
#include "schedlab/random.hpp"

using namespace schedlab;

TEST_CASE("availability profile: hand-checked steps", "[policies][profile]") {
  AvailabilityProfile p(8);
  p.reserve(0, 100, 6);   // [0,100): 2 free
  p.reserve(50, 150, 2);  // [50,100): 0 free, [100,150): 6 free
  CHECK(p.free_at(0) == 2);
  CHECK(p.free_at(50) == 0);
  CHECK(p.free_at(120) == 6);
  CHECK(p.free_at(150) == 8);
  CHECK(p.earliest_start(0, 10, 2) == 0);
  CHECK(p.earliest_start(0, 60, 2) == 100);  // [0,60) crosses the empty [50,100)
  CHECK(p.earliest_start(0, 10, 7) == 150);
  CHECK(p.next_change_after(0) == 50);
  CHECK(p.next_change_after(150) == kNever);
  p.release(50, 150, 2);
  CHECK(p.steps() == 2);  // merged back: [0,100) 2 free, then 8
  p.advance(70);
  CHECK(p.free_at(70) == 2);
  CHECK(p.fits(70, 30, 2));
  CHECK_FALSE(p.fits(70, 31, 3));
}

TEST_CASE("availability profile agrees with a brute-force model", "[policies][profile]") {
  constexpr TimeMs kSpan = 400;
  constexpr std::int64_t kCapacity = 10;
  Rng rng(3);
  for (int round = 0; round < 30; ++round) {
    AvailabilityProfile profile(kCapacity);
    std::vector<std::int64_t> model(kSpan, kCapacity);  // beyond kSpan everything is free
    struct Held {
      TimeMs from, to;
      std::int64_t gpus;
    };
    std::vector<Held> held;
    TimeMs now = 0;
    for (int op = 0; op < 200; ++op) {
      const auto kind = rng.uniform_int(0, 9);
      if (kind <= 4) {  // reserve at the earliest start
        const std::int64_t gpus = rng.uniform_int(1, kCapacity);
        const TimeMs length = rng.uniform_int(1, 60);
        const TimeMs from = now + rng.uniform_int(0, 40);
        TimeMs expected = from;
        while (true) {
          bool ok = true;
          for (TimeMs t = expected; t < expected + length && t < kSpan; ++t)
            if (model[static_cast<std::size_t>(t)] < gpus) {
              ok = false;
              expected = t + 1;
              break;
            }
          if (ok) break;
        }
        const TimeMs got = profile.earliest_start(from, length, gpus);
        REQUIRE(got == expected);
        if (got + length > kSpan) continue;
        profile.reserve(got, got + length, gpus);
        for (TimeMs t = got; t < got + length; ++t) model[static_cast<std::size_t>(t)] -= gpus;
        held.push_back({got, got + length, gpus});
      } else if (kind <= 7 && !held.empty()) {  // release one, possibly partly in the past
        const auto i = static_cast<std::size_t>(
            rng.uniform_int(0, static_cast<std::int64_t>(held.size()) - 1));
        const Held h = held[i];
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
        profile.release(h.from, h.to, h.gpus);
        for (TimeMs t = std::max(h.from, now); t < h.to; ++t)
          model[static_cast<std::size_t>(t)] += h.gpus;
      } else {  // time passes
        now = std::min<TimeMs>(kSpan - 1, now + rng.uniform_int(0, 15));
        profile.advance(now);
      }
      for (TimeMs t = now; t < kSpan; t += 7)
        REQUIRE(profile.free_at(t) == model[static_cast<std::size_t>(t)]);
      const TimeMs change = profile.next_change_after(now);
      for (TimeMs t = now + 1; t < std::min(change, kSpan); ++t)
        REQUIRE(model[static_cast<std::size_t>(t)] == model[static_cast<std::size_t>(now)]);
      // Equal neighbours are merged: one step per run of equal free counts.
      auto free_at = [&](TimeMs t) {
        return t < kSpan ? model[static_cast<std::size_t>(t)] : kCapacity;
      };
      std::size_t runs = 1;
      for (TimeMs t = now + 1; t <= kSpan; ++t) runs += free_at(t) != free_at(t - 1) ? 1 : 0;
      REQUIRE(profile.steps() == runs);
      const TimeMs fit_from = now + rng.uniform_int(0, 60);
      const TimeMs fit_length = rng.uniform_int(1, 60);
      const std::int64_t fit_gpus = rng.uniform_int(0, kCapacity);
      bool fits = true;
      for (TimeMs t = fit_from; t < fit_from + fit_length; ++t)
        fits = fits && free_at(t) >= fit_gpus;
      REQUIRE(profile.fits(fit_from, fit_length, fit_gpus) == fits);
    }
  }
}

TEST_CASE("failed sizes rule out larger jobs of the same or any type", "[policies][profile]") {
  FailedSizes failed;
  CHECK_FALSE(failed.rules_out(0, 1));
  failed.add(0, 4);
  CHECK(failed.rules_out(0, 4));
  CHECK(failed.rules_out(0, 8));
  CHECK_FALSE(failed.rules_out(0, 3));
  CHECK_FALSE(failed.rules_out(1, 8));
  CHECK_FALSE(failed.rules_out(kAnyGpuType, 8));  // an untyped job may use another type
  failed.add(kAnyGpuType, 2);
  CHECK(failed.rules_out(1, 2));
  CHECK(failed.rules_out(kAnyGpuType, 2));
  CHECK_FALSE(failed.rules_out(1, 1));
}

TEST_CASE("failed sizes keep only failures no larger than the smallest node when sizes differ",
          "[policies][profile]") {
  // Nodes of 4 and 8 GPUs: a 6-GPU job may find no node with room while a 12-GPU job takes
  // three whole 4-GPU nodes, so a 6-GPU failure must not rule out larger jobs.
  FailedSizes mixed(Cluster(parse_cluster_spec("4x4,2x8")));
  mixed.add(kAnyGpuType, 6);
  CHECK_FALSE(mixed.rules_out(kAnyGpuType, 12));
  mixed.add(kAnyGpuType, 3);
  CHECK(mixed.rules_out(kAnyGpuType, 3));
  CHECK(mixed.rules_out(kAnyGpuType, 12));
  CHECK_FALSE(mixed.rules_out(kAnyGpuType, 2));

  FailedSizes uniform(Cluster(parse_cluster_spec("4x8")));
  uniform.add(kAnyGpuType, 12);
  CHECK(uniform.rules_out(kAnyGpuType, 16));
  CHECK_FALSE(uniform.rules_out(kAnyGpuType, 11));
}
