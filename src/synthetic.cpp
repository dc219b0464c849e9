#include "schedlab/synthetic.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/random.hpp"

namespace schedlab {

double synthetic_mean_gpu_seconds(const SyntheticTraceSpec& spec) {
  double weight_sum = 0;
  double mean_gpus = 0;
  for (const auto& [gpus, weight] : spec.gang_mix) {
    weight_sum += weight;
    mean_gpus += gpus * weight;
  }
  SCHEDLAB_ASSERT(weight_sum > 0, "gang mix has positive weight");
  mean_gpus /= weight_sum;
  // Mean of the log-normal (clamping ignored: it moves the mean by well under 1%).
  const double mean_duration =
      spec.duration_median_s * std::exp(spec.duration_sigma * spec.duration_sigma / 2.0);
  return mean_gpus * mean_duration;
}

Trace generate_synthetic_trace(const SyntheticTraceSpec& spec) {
  Trace trace;
  trace.path = fmt::format("synthetic(jobs={},seed={})", spec.jobs, spec.seed);
  trace.format = "synthetic";
  trace.jobs.reserve(spec.jobs);
  Rng rng(spec.seed);
  const double mean_interarrival_s =
      spec.load_gpus > 0 ? synthetic_mean_gpu_seconds(spec) /
                               (spec.load * static_cast<double>(spec.load_gpus))
                         : spec.mean_interarrival_s;
  std::vector<double> cumulative;
  double total = 0;
  for (const auto& entry : spec.gang_mix) cumulative.push_back(total += entry.second);
  const double mu = std::log(spec.duration_median_s);
  double clock_s = 0;
  for (std::uint64_t i = 0; i < spec.jobs; ++i) {
    JobSpec job;
    job.id = std::to_string(i);
    job.line = static_cast<std::uint32_t>(std::min<std::uint64_t>(i + 2, 0xFFFFFFFFu));
    job.submit_ms = static_cast<TimeMs>(std::llround(clock_s * 1000.0));
    const double pick = rng.uniform() * total;
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), pick);
    job.gpus = spec.gang_mix[static_cast<std::size_t>(
                                 std::min<std::ptrdiff_t>(it - cumulative.begin(),
                                                          static_cast<std::ptrdiff_t>(spec.gang_mix.size()) - 1))]
                   .first;
    const double duration_s = std::clamp(rng.lognormal(mu, spec.duration_sigma), spec.duration_min_s,
                                         spec.duration_max_s);
    job.duration_ms = std::max<TimeMs>(1, static_cast<TimeMs>(std::llround(duration_s * 1000.0)));
    trace.jobs.push_back(std::move(job));
    clock_s += rng.exponential(mean_interarrival_s);
  }
  return trace;
}

std::string to_native_csv(const Trace& trace) {
  fmt::memory_buffer out;
  out.reserve(trace.jobs.size() * 40 + 64);
  fmt::format_to(std::back_inserter(out), "id,submit_time,gpus,duration\n");
  for (const auto& job : trace.jobs) {
    fmt::format_to(std::back_inserter(out), "{},{}.{:03},{},{}.{:03}\n", job.id, job.submit_ms / 1000,
                   job.submit_ms % 1000, job.gpus, job.duration_ms / 1000, job.duration_ms % 1000);
  }
  return fmt::to_string(out);
}

}  // namespace schedlab
