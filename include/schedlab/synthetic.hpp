// Synthetic trace generation: Poisson or bursty arrivals, log-normal or empirical durations, a
// gang-size mix, and optionally priorities, users and tenants; fitting to a real trace.
// Same parameters and seed, same trace (see random.hpp). The defaults draw, per job, exactly
// one uniform (gang size), one log-normal (duration) and one exponential (next arrival); the
// optional features draw only when enabled, so default traces never change.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "schedlab/job.hpp"

namespace schedlab {

// Most jobs a synthetic trace may have (about 100 bytes of memory each while it is written).
inline constexpr std::uint64_t kMaxSyntheticJobs = 50'000'000;

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
  std::vector<std::pair<int, double>> gang_mix = {{1, 0.55},  {2, 0.10},  {4, 0.10}, {8, 0.15},
                                                  {16, 0.05}, {32, 0.03}, {64, 0.02}};

  // Arrivals. kBursty is a two-state Markov-modulated Poisson process with the same mean rate:
  // bursts (exponentially long, mean `burst_mean_s`, a `burst_fraction` share of time) arrive
  // `burst_factor` times faster than the time between bursts.
  enum class Arrival : std::uint8_t { kPoisson, kBursty };
  Arrival arrival = Arrival::kPoisson;
  double burst_factor = 10.0;
  double burst_fraction = 0.1;
  double burst_mean_s = 3600.0;
  // Durations. kEmpirical draws from `empirical_durations_s` (ascending) by inverse CDF with
  // linear interpolation between order statistics; clamping as for log-normal.
  enum class Duration : std::uint8_t { kLogNormal, kEmpirical };
  Duration duration = Duration::kLogNormal;
  std::vector<double> empirical_durations_s;
  // Priorities and their relative weights; empty = every job priority 0 (no draw).
  std::vector<std::pair<std::int64_t, double>> priority_mix;
  // Users "u1".."uN" and tenants "t1".."tN" drawn from a Zipf law with exponent `*_skew`
  // (0 = uniform); 0 = none (no draw).
  std::uint32_t users = 0;
  double user_skew = 1.0;
  std::uint32_t tenants = 0;
  double tenant_skew = 0.0;
};

// Mean GPU-seconds of one job under the spec (used to derive the arrival rate from the load).
double synthetic_mean_gpu_seconds(const SyntheticTraceSpec& spec);
// Throws ConfigError for inconsistent parameters (empty or negative mix, bad burst shape, ...).
void check_synthetic_spec(const SyntheticTraceSpec& spec);
Trace generate_synthetic_trace(const SyntheticTraceSpec& spec);

// Fits `spec` to a trace: mean inter-arrival = (last - first submit) / (jobs - 1), gang mix =
// the trace's GPU-count frequencies, durations = log-normal by maximum likelihood (median =
// exp(mean ln d), sigma = std-dev of ln d) or, with `empirical`, the trace's own durations;
// clamps = the trace's shortest and longest duration. Other fields of `spec` are kept.
void fit_synthetic_spec(const Trace& trace, bool empirical, SyntheticTraceSpec& spec);
// Native CSV (id,submit_time,gpus,duration) with times at millisecond precision.
std::string to_native_csv(const Trace& trace);

}  // namespace schedlab
