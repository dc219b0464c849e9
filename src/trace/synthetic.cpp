#include "schedlab/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

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
  if (spec.duration == SyntheticTraceSpec::Duration::kEmpirical &&
      !spec.empirical_durations_s.empty()) {
    double sum = 0;
    for (double d : spec.empirical_durations_s)
      sum += std::clamp(d, spec.duration_min_s, spec.duration_max_s);
    return mean_gpus * sum / static_cast<double>(spec.empirical_durations_s.size());
  }
  // Mean of the log-normal (clamping ignored: it moves the mean by well under 1%).
  const double mean_duration =
      spec.duration_median_s * std::exp(spec.duration_sigma * spec.duration_sigma / 2.0);
  return mean_gpus * mean_duration;
}

namespace {

// Cumulative weights of a mix, for inverse-CDF picks with one uniform draw.
template <typename T>
std::vector<double> cumulative_of(const std::vector<std::pair<T, double>>& mix) {
  std::vector<double> out;
  out.reserve(mix.size());
  double total = 0;
  for (const auto& entry : mix) out.push_back(total += entry.second);
  return out;
}

std::size_t pick_index(const std::vector<double>& cumulative, double uniform) {
  const double target = uniform * cumulative.back();
  const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), target);
  return static_cast<std::size_t>(std::min<std::ptrdiff_t>(
      it - cumulative.begin(), static_cast<std::ptrdiff_t>(cumulative.size()) - 1));
}

// Zipf weights 1/k^skew for k = 1..n, cumulative.
std::vector<double> zipf_cumulative(std::uint32_t n, double skew) {
  std::vector<double> out;
  out.reserve(n);
  double total = 0;
  for (std::uint32_t k = 1; k <= n; ++k)
    out.push_back(total += std::pow(static_cast<double>(k), -skew));
  return out;
}

// Inter-arrival gaps of a two-state Markov-modulated Poisson process.
class BurstyArrivals {
 public:
  BurstyArrivals(const SyntheticTraceSpec& spec, double mean_interarrival_s, Rng& rng) : rng_(rng) {
    const double p = spec.burst_fraction;
    const double rate = 1.0 / mean_interarrival_s;
    quiet_rate_ = rate / (p * spec.burst_factor + 1.0 - p);
    burst_rate_ = spec.burst_factor * quiet_rate_;
    burst_mean_s_ = spec.burst_mean_s;
    quiet_mean_s_ = spec.burst_mean_s * (1.0 - p) / p;
    in_burst_ = rng_.uniform() < p;
    remaining_s_ = rng_.exponential(in_burst_ ? burst_mean_s_ : quiet_mean_s_);
  }
  double next_gap_s() {
    double gap = 0;
    for (;;) {
      const double draw = rng_.exponential(1.0 / (in_burst_ ? burst_rate_ : quiet_rate_));
      if (draw < remaining_s_) {
        remaining_s_ -= draw;
        return gap + draw;
      }
      // No arrival before the state changes; by memorylessness start afresh in the new state.
      gap += remaining_s_;
      in_burst_ = !in_burst_;
      remaining_s_ = rng_.exponential(in_burst_ ? burst_mean_s_ : quiet_mean_s_);
    }
  }

 private:
  Rng& rng_;
  double quiet_rate_ = 0, burst_rate_ = 0, burst_mean_s_ = 0, quiet_mean_s_ = 0;
  bool in_burst_ = false;
  double remaining_s_ = 0;
};

}  // namespace

// Latest submit time and longest duration a synthetic trace may hold (about 31,700 years):
// far inside the millisecond clock's range, so sums of times cannot overflow.
constexpr double kMaxSyntheticTimeS = 1e12;

void check_synthetic_spec(const SyntheticTraceSpec& spec) {
  auto fail = [](const std::string& what) { throw ConfigError("synthetic trace: " + what); };
  if (spec.jobs > kMaxSyntheticJobs)
    fail(fmt::format("{} jobs is above the limit of {}", spec.jobs, kMaxSyntheticJobs));
  if (spec.load_gpus < 0) fail(fmt::format("load GPUs {} is not >= 0", spec.load_gpus));
  if (spec.gang_mix.empty()) fail("the gang-size mix is empty");
  double gang_total = 0;
  for (const auto& [gpus, weight] : spec.gang_mix) {
    if (gpus < 1) fail(fmt::format("gang size {} is not >= 1", gpus));
    if (!(weight >= 0) || !std::isfinite(weight))
      fail(fmt::format("gang size {} has weight {} (expected >= 0)", gpus, weight));
    gang_total += weight;
  }
  if (!(gang_total > 0) || !std::isfinite(gang_total))
    fail(fmt::format("the gang-size weights sum to {} (expected a finite sum > 0)", gang_total));
  if (!(spec.duration_min_s > 0) || !(spec.duration_max_s >= spec.duration_min_s) ||
      !(spec.duration_max_s <= kMaxSyntheticTimeS))
    fail(fmt::format("duration clamps [{}, {}] s must satisfy 0 < min <= max <= {:g}",
                     spec.duration_min_s, spec.duration_max_s, kMaxSyntheticTimeS));
  if (spec.duration == SyntheticTraceSpec::Duration::kLogNormal &&
      (!(spec.duration_median_s > 0) || !(spec.duration_median_s <= kMaxSyntheticTimeS) ||
       !(spec.duration_sigma >= 0) || !(spec.duration_sigma <= 100)))
    fail(fmt::format(
        "log-normal durations need 0 < median <= {:g} s and 0 <= sigma <= 100 (got {} s, {})",
        kMaxSyntheticTimeS, spec.duration_median_s, spec.duration_sigma));
  if (spec.duration == SyntheticTraceSpec::Duration::kEmpirical) {
    if (spec.empirical_durations_s.empty()) fail("empirical durations need a sample");
    if (!std::is_sorted(spec.empirical_durations_s.begin(), spec.empirical_durations_s.end()))
      fail("the empirical duration sample must be ascending");
  }
  if (spec.load_gpus > 0 ? !(spec.load > 0) : !(spec.mean_interarrival_s > 0))
    fail("the arrival rate must be positive (load > 0 or mean inter-arrival > 0)");
  if (spec.load_gpus == 0 && !(spec.mean_interarrival_s <= kMaxSyntheticTimeS))
    fail(fmt::format("mean inter-arrival {} s is above {:g} s", spec.mean_interarrival_s,
                     kMaxSyntheticTimeS));
  if (spec.arrival == SyntheticTraceSpec::Arrival::kBursty &&
      (!(spec.burst_factor >= 1) || !(spec.burst_fraction > 0) || !(spec.burst_fraction < 1) ||
       !(spec.burst_mean_s > 0)))
    fail(
        fmt::format("bursty arrivals need factor >= 1, 0 < fraction < 1 and mean burst > 0 "
                    "(got {}, {}, {} s)",
                    spec.burst_factor, spec.burst_fraction, spec.burst_mean_s));
  double priority_total = 0;
  for (const auto& [priority, weight] : spec.priority_mix) {
    if (!(weight >= 0))
      fail(fmt::format("priority {} has weight {} (expected >= 0)", priority, weight));
    priority_total += weight;
  }
  if (!spec.priority_mix.empty() && (!(priority_total > 0) || !std::isfinite(priority_total)))
    fail(fmt::format("the priority weights sum to {} (expected a finite sum > 0)", priority_total));
  if (!(spec.user_skew >= 0) || !(spec.tenant_skew >= 0)) fail("Zipf skews must be >= 0");
}

Trace generate_synthetic_trace(const SyntheticTraceSpec& spec) {
  check_synthetic_spec(spec);
  Trace trace;
  trace.path = fmt::format("synthetic(jobs={},seed={})", spec.jobs, spec.seed);
  trace.format = "synthetic";
  trace.jobs.reserve(spec.jobs);
  Rng rng(spec.seed);
  const double mean_interarrival_s =
      spec.load_gpus > 0
          ? synthetic_mean_gpu_seconds(spec) / (spec.load * static_cast<double>(spec.load_gpus))
          : spec.mean_interarrival_s;
  std::vector<double> cumulative;
  double total = 0;
  for (const auto& entry : spec.gang_mix) cumulative.push_back(total += entry.second);
  const double mu = std::log(spec.duration_median_s);
  const std::vector<double>& sample = spec.empirical_durations_s;
  auto empirical_quantile = [&sample](double u) {
    const double rank = u * static_cast<double>(sample.size() - 1);
    const auto lower = static_cast<std::size_t>(rank);
    const std::size_t upper = std::min(lower + 1, sample.size() - 1);
    return sample[lower] + (sample[upper] - sample[lower]) * (rank - static_cast<double>(lower));
  };
  const std::vector<double> priority_cumulative = cumulative_of(spec.priority_mix);
  const std::vector<double> user_cumulative = zipf_cumulative(spec.users, spec.user_skew);
  const std::vector<double> tenant_cumulative = zipf_cumulative(spec.tenants, spec.tenant_skew);
  std::optional<BurstyArrivals> bursty;
  if (spec.arrival == SyntheticTraceSpec::Arrival::kBursty) {
    // Each burst cycle costs a step: with cycles far shorter than the gaps between arrivals the
    // generator would step billions of times (and bursts that short are not bursts).
    const double cycle_s = spec.burst_mean_s / spec.burst_fraction;
    if (!(cycle_s * 10'000.0 >= mean_interarrival_s))
      throw ConfigError(fmt::format(
          "synthetic trace: bursts of {} s (a cycle of {} s with fraction {}) are too short for "
          "one arrival every {} s on average: a cycle must be at least 1/10000 of that",
          spec.burst_mean_s, cycle_s, spec.burst_fraction, mean_interarrival_s));
    bursty.emplace(spec, mean_interarrival_s, rng);
  }
  double clock_s = 0;
  for (std::uint64_t i = 0; i < spec.jobs; ++i) {
    JobSpec job;
    job.id = std::to_string(i);
    job.line = static_cast<std::uint32_t>(std::min<std::uint64_t>(i + 2, 0xFFFFFFFFu));
    if (!(clock_s <= kMaxSyntheticTimeS))
      throw ConfigError(fmt::format(
          "synthetic trace: job {} would be submitted after {:g} s (arrivals too sparse for {} "
          "jobs: raise the load or lower the mean inter-arrival)",
          i, kMaxSyntheticTimeS, spec.jobs));
    job.submit_ms = static_cast<TimeMs>(std::llround(clock_s * 1000.0));
    const double pick = rng.uniform() * total;
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), pick);
    job.gpus =
        spec
            .gang_mix[static_cast<std::size_t>(std::min<std::ptrdiff_t>(
                it - cumulative.begin(), static_cast<std::ptrdiff_t>(spec.gang_mix.size()) - 1))]
            .first;
    const double drawn_s = spec.duration == SyntheticTraceSpec::Duration::kLogNormal
                               ? rng.lognormal(mu, spec.duration_sigma)
                               : empirical_quantile(rng.uniform());
    const double duration_s = std::clamp(drawn_s, spec.duration_min_s, spec.duration_max_s);
    job.duration_ms = std::max<TimeMs>(1, static_cast<TimeMs>(std::llround(duration_s * 1000.0)));
    if (!spec.priority_mix.empty())
      job.priority = spec.priority_mix[pick_index(priority_cumulative, rng.uniform())].first;
    if (spec.users > 0)
      job.user =
          trace.strings.intern(fmt::format("u{}", pick_index(user_cumulative, rng.uniform()) + 1));
    if (spec.tenants > 0)
      job.tenant = trace.strings.intern(
          fmt::format("t{}", pick_index(tenant_cumulative, rng.uniform()) + 1));
    trace.jobs.push_back(std::move(job));
    clock_s += bursty ? bursty->next_gap_s() : rng.exponential(mean_interarrival_s);
  }
  return trace;
}

void fit_synthetic_spec(const Trace& trace, bool empirical, SyntheticTraceSpec& spec) {
  if (trace.jobs.empty()) throw ConfigError(fmt::format("{}: no jobs to fit", trace.path));
  TimeMs first = trace.jobs.front().submit_ms;
  TimeMs last = first;
  std::map<int, std::uint64_t> sizes;
  std::vector<double> durations;
  durations.reserve(trace.jobs.size());
  double log_sum = 0;
  for (const auto& job : trace.jobs) {
    first = std::min(first, job.submit_ms);
    last = std::max(last, job.submit_ms);
    ++sizes[job.gpus];
    const double d = static_cast<double>(job.duration_ms) / 1000.0;
    durations.push_back(d);
    log_sum += std::log(d);
  }
  const auto n = static_cast<double>(trace.jobs.size());
  spec.load_gpus = 0;
  if (trace.jobs.size() >= 2 && last > first)
    spec.mean_interarrival_s = static_cast<double>(last - first) / 1000.0 / (n - 1.0);
  spec.gang_mix.clear();
  for (const auto& [gpus, count] : sizes)
    spec.gang_mix.emplace_back(gpus, static_cast<double>(count) / n);
  const double mu = log_sum / n;
  double square_sum = 0;
  for (double d : durations) square_sum += (std::log(d) - mu) * (std::log(d) - mu);
  spec.duration_median_s = std::exp(mu);
  spec.duration_sigma = std::sqrt(square_sum / n);
  std::sort(durations.begin(), durations.end());
  spec.duration_min_s = durations.front();
  spec.duration_max_s = durations.back();
  if (empirical) {
    spec.duration = SyntheticTraceSpec::Duration::kEmpirical;
    spec.empirical_durations_s = std::move(durations);
  } else {
    spec.duration = SyntheticTraceSpec::Duration::kLogNormal;
    spec.empirical_durations_s.clear();
  }
}

std::string to_native_csv(const Trace& trace) {
  fmt::memory_buffer out;
  out.reserve(trace.jobs.size() * 40 + 64);
  fmt::format_to(std::back_inserter(out), "id,submit_time,gpus,duration\n");
  for (const auto& job : trace.jobs) {
    fmt::format_to(std::back_inserter(out), "{},{}.{:03},{},{}.{:03}\n", job.id,
                   job.submit_ms / 1000, job.submit_ms % 1000, job.gpus, job.duration_ms / 1000,
                   job.duration_ms % 1000);
  }
  return fmt::to_string(out);
}

}  // namespace schedlab
