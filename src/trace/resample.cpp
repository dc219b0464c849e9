#include "schedlab/resample.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/random.hpp"
#include "schedlab/trace_filter.hpp"

namespace schedlab {

namespace {

[[noreturn]] void refuse(const std::string& text, const std::string& why) {
  throw ConfigError(fmt::format("--resample '{}': {}", text, why));
}

// Job indices in submit order (ties: trace order).
std::vector<std::size_t> submit_order(const Trace& trace) {
  std::vector<std::size_t> order(trace.jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return trace.jobs[a].submit_ms < trace.jobs[b].submit_ms;
  });
  return order;
}

Trace bootstrap(const Trace& trace, TimeMs block_ms, Rng& rng) {
  Trace out = trace;
  out.jobs.clear();
  if (trace.jobs.empty()) return out;
  const auto [first, last] = std::minmax_element(
      trace.jobs.begin(), trace.jobs.end(),
      [](const JobSpec& a, const JobSpec& b) { return a.submit_ms < b.submit_ms; });
  const TimeMs t0 = first->submit_ms;
  const auto blocks = static_cast<std::size_t>((last->submit_ms - t0) / block_ms + 1);
  std::vector<std::vector<std::size_t>> jobs_of_block(blocks);
  for (std::size_t j = 0; j < trace.jobs.size(); ++j)
    jobs_of_block[static_cast<std::size_t>((trace.jobs[j].submit_ms - t0) / block_ms)].push_back(j);
  for (std::size_t k = 0; k < blocks; ++k) {
    const auto drawn =
        static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(blocks) - 1));
    const TimeMs shift = (static_cast<TimeMs>(k) - static_cast<TimeMs>(drawn)) * block_ms;
    for (const std::size_t j : jobs_of_block[drawn]) {
      JobSpec job = trace.jobs[j];
      job.id = fmt::format("{}~{}", job.id, k);
      job.submit_ms += shift;
      out.jobs.push_back(std::move(job));
    }
  }
  return out;
}

// A factor uniform in [1 - x, 1 + x].
double factor(Rng& rng, double x) {
  return 1.0 - x + 2.0 * x * rng.uniform();
}

TimeMs scaled_ms(TimeMs ms, double f) {
  return std::max<TimeMs>(1, std::llround(static_cast<double>(ms) * f));
}

Trace jitter(const Trace& trace, double x, Rng& rng) {
  Trace out = trace;
  const std::vector<std::size_t> order = submit_order(trace);
  // Gaps in submit order, so the order of arrivals is kept; then durations in trace order.
  TimeMs previous_in = 0;
  TimeMs previous_out = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const TimeMs submit = trace.jobs[order[i]].submit_ms;
    const TimeMs out_ms =
        i == 0 ? submit
               : previous_out +
                     std::llround(static_cast<double>(submit - previous_in) * factor(rng, x));
    out.jobs[order[i]].submit_ms = out_ms;
    previous_in = submit;
    previous_out = out_ms;
  }
  for (JobSpec& job : out.jobs) {
    const double f = factor(rng, x);
    job.duration_ms = scaled_ms(job.duration_ms, f);
    if (job.walltime_ms != kUnsetMs) job.walltime_ms = scaled_ms(job.walltime_ms, f);
  }
  return out;
}

Trace window(const Trace& trace, TimeMs window_ms, Rng& rng) {
  Trace out = trace;
  if (trace.jobs.empty()) return out;
  const std::vector<std::size_t> order = submit_order(trace);
  const TimeMs last = trace.jobs[order.back()].submit_ms;
  // Candidate starts: submissions at least D before the last one (else the first).
  std::size_t candidates = 0;
  while (candidates < order.size() && trace.jobs[order[candidates]].submit_ms <= last - window_ms)
    ++candidates;
  const std::size_t chosen =
      candidates == 0
          ? 0
          : static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(candidates) - 1));
  const TimeMs start = trace.jobs[order[chosen]].submit_ms;
  std::erase_if(out.jobs, [&](const JobSpec& job) {
    return job.submit_ms < start || job.submit_ms >= saturating_add(start, window_ms);
  });
  return out;
}

}  // namespace

ResampleSpec parse_resample(const std::string& text) {
  ResampleSpec spec;
  spec.text = text;
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string value = colon == std::string::npos ? "" : text.substr(colon + 1);
  const auto time_value = [&](const char* what) {
    const auto ms = parse_time_with_unit(value);
    if (!ms && time_with_unit_too_large(value))
      refuse(text, fmt::format("{} is too large: at most {}", what, kMaxTimeText));
    if (!ms || *ms <= 0)
      refuse(text,
             fmt::format("expected {} > 0 in seconds or with a unit (90s, 30m, 12h, 2d)", what));
    return *ms;
  };
  if (kind == "none" && colon == std::string::npos) return spec;
  if (kind == "bootstrap") {
    spec.kind = ResampleKind::kBootstrap;
    if (colon != std::string::npos) spec.block_ms = time_value("a block length");
    return spec;
  }
  if (kind == "jitter") {
    spec.kind = ResampleKind::kJitter;
    const auto x = parse_double(value);
    if (!x || !(*x > 0 && *x < 1))
      refuse(text, "expected jitter:X with 0 < X < 1, e.g. jitter:0.1");
    spec.jitter = *x;
    return spec;
  }
  if (kind == "window") {
    spec.kind = ResampleKind::kWindow;
    spec.window_ms = time_value("a window length");
    return spec;
  }
  refuse(text, "expected none, bootstrap[:BLOCK], jitter:X or window:D");
}

void check_time_range(const Trace& trace, double load_scale, const ResampleSpec& spec) {
  if (trace.jobs.empty()) return;
  const double stretch = spec.kind == ResampleKind::kJitter ? 1.0 + spec.jitter : 1.0;
  TimeMs first_ms = trace.jobs.front().submit_ms;
  TimeMs last_ms = first_ms;
  TimeMs longest_ms = 0;
  for (const JobSpec& job : trace.jobs) {
    first_ms = std::min(first_ms, job.submit_ms);
    last_ms = std::max(last_ms, job.submit_ms);
    longest_ms = std::max({longest_ms, job.duration_ms, job.walltime_ms});
  }
  // Computed in double before any conversion: each gap grows by at most the factor, and each
  // jittered gap rounds by at most half a millisecond.
  const double limit_ms = static_cast<double>(kMaxTimeMs);
  const double last_out_ms =
      static_cast<double>(first_ms) +
      static_cast<double>(last_ms - first_ms) / load_scale * stretch +
      (spec.kind == ResampleKind::kJitter ? static_cast<double>(trace.jobs.size()) : 0.0);
  const double longest_out_ms =
      static_cast<double>(longest_ms) * stretch + (spec.kind == ResampleKind::kJitter ? 1.0 : 0.0);
  if (last_out_ms <= limit_ms && longest_out_ms <= limit_ms) return;
  std::string how;
  if (load_scale != 1.0) how = fmt::format("load scale {}", load_scale);
  if (spec.kind == ResampleKind::kJitter)
    how += fmt::format("{}--resample '{}'", how.empty() ? "" : " with ", spec.text);
  const bool arrivals = last_out_ms > limit_ms;
  throw ConfigError(fmt::format(
      "{}: {} could reach {:.6g} s, beyond the clock's limit of {}{}", how,
      arrivals ? "the trace's last arrival" : "a job's duration",
      (arrivals ? last_out_ms : longest_out_ms) / 1000.0, kMaxTimeText,
      arrivals && load_scale != 1.0 ? "; use a larger load scale or a shorter trace" : ""));
}

Trace resample_trace(const Trace& trace, const ResampleSpec& spec, std::uint64_t seed) {
  check_time_range(trace, 1.0, spec);
  // A stream of its own (splitmix64 of the seed): the failure model draws from the seed as is.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  Rng rng(z ^ (z >> 31U));
  switch (spec.kind) {
    case ResampleKind::kNone: return trace;
    case ResampleKind::kBootstrap: return bootstrap(trace, spec.block_ms, rng);
    case ResampleKind::kJitter: return jitter(trace, spec.jitter, rng);
    case ResampleKind::kWindow: return window(trace, spec.window_ms, rng);
  }
  SCHEDLAB_ASSERT(false, "every resample kind is handled");
  return trace;
}

}  // namespace schedlab
