// schedlab gen: a seeded synthetic trace in the native format, optionally fitted to a real one.
#include <cstdio>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/synthetic.hpp"
#include "schedlab/trace_writer.hpp"

namespace schedlab::cli {

namespace {

struct GenArgs {
  SyntheticTraceSpec spec;
  std::string out;
  std::string arrival = "poisson";
  std::string duration = "lognormal";
  std::string gang_mix;
  std::string priority_mix;
  std::string like;
  std::string like_format = "auto";
  std::vector<std::string> filters;
};

// "1:0.55,2:0.1" -> {(1, 0.55), (2, 0.1)}.
template <typename T>
std::vector<std::pair<T, double>> parse_mix(const std::string& text, const char* flag,
                                            std::int64_t lo, std::int64_t hi) {
  std::vector<std::pair<T, double>> mix;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item(trim(std::string_view(text).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start)));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    const auto colon = item.find(':');
    const auto key = colon == std::string::npos ? std::nullopt : parse_int(item.substr(0, colon));
    const auto weight =
        colon == std::string::npos ? std::nullopt : parse_double(item.substr(colon + 1));
    if (!key || !weight || *key < lo || *key > hi || !(*weight >= 0) || !std::isfinite(*weight))
      throw ConfigError(
          fmt::format("{} '{}': item '{}': expected VALUE:WEIGHT with VALUE in {}..{} and "
                      "WEIGHT >= 0, e.g. 1:0.6,8:0.4",
                      flag, text, item, lo, hi));
    mix.emplace_back(static_cast<T>(*key), *weight);
  }
  return mix;
}

std::string describe_fit(const SyntheticTraceSpec& s, const std::string& path, std::size_t jobs) {
  std::string mix;
  for (const auto& [gpus, weight] : s.gang_mix)
    mix += fmt::format("{}{}:{:.4f}", mix.empty() ? "" : ",", gpus, weight);
  const std::string durations =
      s.duration == SyntheticTraceSpec::Duration::kEmpirical
          ? fmt::format("empirical ({} samples)", s.empirical_durations_s.size())
          : fmt::format("log-normal median {:.3f} s sigma {:.4f}", s.duration_median_s,
                        s.duration_sigma);
  return fmt::format(
      "fitted to {} ({} jobs): mean inter-arrival {:.3f} s, gang mix {}, durations {} "
      "clamped to [{:.3f}, {:.3f}] s",
      path, jobs, s.mean_interarrival_s, mix, durations, s.duration_min_s, s.duration_max_s);
}

}  // namespace

Action add_gen_command(CLI::App& app) {
  auto args = std::make_shared<GenArgs>();
  auto& s = args->spec;
  CLI::App* cmd = app.add_subcommand("gen", "generate a synthetic trace (native format), seeded");
  cmd->add_option("-o,--out", args->out,
                  "output file (written atomically; .gz compresses); default stdout")
      ->check(non_empty_output_path());
  auto* jobs =
      cmd->add_option("-n,--jobs", s.jobs, "number of jobs (with --like: as many as the trace)")
          ->capture_default_str()
          // Checked on the text, so "-1" is refused rather than wrapped to 2^64 - 1.
          ->check(CLI::Range(std::int64_t{1}, static_cast<std::int64_t>(kMaxSyntheticJobs)));
  cmd->add_option("--seed", s.seed, "random seed")->capture_default_str();
  cmd->add_option("--arrival", args->arrival, "poisson | bursty")->capture_default_str();
  auto* interarrival = cmd->add_option("--mean-interarrival", s.mean_interarrival_s,
                                       "mean seconds between submissions")
                           ->capture_default_str();
  auto* load =
      cmd->add_option("--load", s.load, "offered load; with --load-gpus sets the arrival rate")
          ->capture_default_str();
  auto* load_gpus = cmd->add_option("--load-gpus", s.load_gpus,
                                    "GPUs the load refers to (0: use --mean-interarrival)")
                        ->capture_default_str();
  cmd->add_option("--burst-factor", s.burst_factor,
                  "bursty: arrival rate in a burst / between bursts")
      ->capture_default_str();
  cmd->add_option("--burst-fraction", s.burst_fraction, "bursty: share of time in bursts")
      ->capture_default_str();
  cmd->add_option("--burst-mean", s.burst_mean_s, "bursty: mean burst length in seconds")
      ->capture_default_str();
  cmd->add_option("--duration", args->duration,
                  "lognormal | empirical (needs --like: resamples its durations)")
      ->capture_default_str();
  auto* median =
      cmd->add_option("--duration-median", s.duration_median_s, "log-normal median, seconds")
          ->capture_default_str();
  auto* sigma = cmd->add_option("--duration-sigma", s.duration_sigma, "log-normal shape")
                    ->capture_default_str();
  auto* dmin = cmd->add_option("--duration-min", s.duration_min_s, "shortest duration, seconds")
                   ->capture_default_str();
  auto* dmax = cmd->add_option("--duration-max", s.duration_max_s, "longest duration, seconds")
                   ->capture_default_str();
  auto* gang =
      cmd->add_option("--gang-mix", args->gang_mix,
                      "GPUS:WEIGHT,... (default 1:.55,2:.1,4:.1,8:.15,16:.05,32:.03,64:.02)");
  cmd->add_option("--priority-mix", args->priority_mix, "PRIORITY:WEIGHT,... (default: all 0)");
  cmd->add_option("--users", s.users, "number of users u1..uN (0: none)")->capture_default_str();
  cmd->add_option("--user-skew", s.user_skew, "Zipf exponent of user activity (0: uniform)")
      ->capture_default_str();
  cmd->add_option("--tenants", s.tenants, "number of tenants t1..tN (0: none)")
      ->capture_default_str();
  cmd->add_option("--tenant-skew", s.tenant_skew, "Zipf exponent of tenant activity")
      ->capture_default_str();
  cmd->add_option("--like", args->like, "fit arrival rate, gang mix and durations to this trace");
  cmd->add_option("--like-format", args->like_format, "format of the --like trace")
      ->capture_default_str();
  add_filter_option(*cmd, args->filters);
  return [=]() -> int {
    if (!cmd->parsed()) return -1;
    SyntheticTraceSpec spec = args->spec;  // holds the explicit options and defaults
    if (args->arrival == "poisson")
      spec.arrival = SyntheticTraceSpec::Arrival::kPoisson;
    else if (args->arrival == "bursty")
      spec.arrival = SyntheticTraceSpec::Arrival::kBursty;
    else
      throw ConfigError(fmt::format("--arrival '{}': expected poisson or bursty", args->arrival));
    if (args->duration != "lognormal" && args->duration != "empirical")
      throw ConfigError(
          fmt::format("--duration '{}': expected lognormal or empirical", args->duration));
    const bool empirical = args->duration == "empirical";
    if (empirical && args->like.empty())
      throw ConfigError("--duration empirical: needs --like TRACE to draw durations from");
    if (!args->filters.empty() && args->like.empty())
      throw ConfigError("--filter: applies to the --like trace; give --like TRACE");
    if (!args->gang_mix.empty())
      spec.gang_mix = parse_mix<int>(args->gang_mix, "--gang-mix", 1, kMaxTraceGpus);
    if (!args->priority_mix.empty())
      spec.priority_mix = parse_mix<std::int64_t>(args->priority_mix, "--priority-mix",
                                                  kMinTracePriority, kMaxTracePriority);
    if (!args->like.empty()) {
      const Trace like = load_trace(args->like, args->like_format, args->filters);
      SyntheticTraceSpec fitted = spec;
      fit_synthetic_spec(like, empirical, fitted);
      // Options given explicitly win over the fitted values.
      if (jobs->count() == 0) fitted.jobs = like.jobs.size();
      if (interarrival->count() > 0) fitted.mean_interarrival_s = spec.mean_interarrival_s;
      if (load->count() > 0 || load_gpus->count() > 0) {
        fitted.load = spec.load;
        fitted.load_gpus = spec.load_gpus;
      }
      if (gang->count() > 0) fitted.gang_mix = spec.gang_mix;
      if (median->count() > 0) fitted.duration_median_s = spec.duration_median_s;
      if (sigma->count() > 0) fitted.duration_sigma = spec.duration_sigma;
      if (dmin->count() > 0) fitted.duration_min_s = spec.duration_min_s;
      if (dmax->count() > 0) fitted.duration_max_s = spec.duration_max_s;
      spec = std::move(fitted);
      std::fprintf(stderr, "schedlab: %s\n",
                   printable_text(describe_fit(spec, args->like, like.jobs.size())).c_str());
    }
    if (spec.jobs == 0) throw ConfigError("--jobs: expected an integer >= 1");
    const Trace trace = generate_synthetic_trace(spec);
    const std::string content = format_native_trace(trace);
    if (args->out.empty() || args->out == "-") {
      std::fwrite(content.data(), 1, content.size(), stdout);
    } else {
      write_trace_file(args->out, content);
      std::fprintf(stderr, "schedlab: wrote %zu jobs to %s\n", trace.jobs.size(),
                   printable_text(args->out).c_str());
    }
    return kExitOk;
  };
}

}  // namespace schedlab::cli
