// The run's one seeded random source. Same seed, same sequence on every platform: the
// generator is std::mt19937_64 and the distributions are written here (std's distributions
// are implementation-defined).
#pragma once

#include <cstdint>
#include <random>

namespace schedlab {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  // Uniform in [0, 1), 53 random bits.
  double uniform();
  // Uniform integer in [lo, hi].
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  double exponential(double mean);
  double normal(double mean, double stddev);
  double lognormal(double mu, double sigma);

 private:
  std::mt19937_64 engine_;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0.0;
};

}  // namespace schedlab
