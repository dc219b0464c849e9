// Synthetic trace generation: Poisson arrivals, log-normal durations, a gang-size mix.
// Same parameters and seed, same trace (see random.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "schedlab/job.hpp"

namespace schedlab {

struct SyntheticTraceSpec {
  std::uint64_t jobs = 10'000;
  std::uint64_t seed = 1;
  // Offered load: GPU-seconds requested per GPU-second of capacity. With `load_gpus` > 0 the
  // arrival rate is derived from it; otherwise `mean_interarrival_s` is used as given.
  double load = 0.9;
  std::int64_t load_gpus = 0;
  double mean_interarrival_s = 60.0;
  // Durations: log-normal with this median and shape; clamped to [min, max].
  double duration_median_s = 1800.0;
  double duration_sigma = 1.5;
  double duration_min_s = 1.0;
  double duration_max_s = 30.0 * 86400.0;
  // Gang sizes and their relative weights.
  std::vector<std::pair<int, double>> gang_mix = {{1, 0.55}, {2, 0.10}, {4, 0.10}, {8, 0.15},
                                                  {16, 0.05}, {32, 0.03}, {64, 0.02}};
};

// Mean GPU-seconds of one job under the spec (used to derive the arrival rate from the load).
double synthetic_mean_gpu_seconds(const SyntheticTraceSpec& spec);
Trace generate_synthetic_trace(const SyntheticTraceSpec& spec);
// Native CSV (id,submit_time,gpus,duration) with times at millisecond precision.
std::string to_native_csv(const Trace& trace);

}  // namespace schedlab
