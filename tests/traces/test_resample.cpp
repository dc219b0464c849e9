// Workload resampling (resample.hpp): what each method keeps of the original trace, checked on
// the bundled philly-6214e9 trace over 20 seeds; determinism; the option's errors; and a sweep
// whose seeds now vary the workload.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <set>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "schedlab/error.hpp"
#include "schedlab/resample.hpp"
#include "schedlab/trace.hpp"
#include "support/builders.hpp"

using namespace schedlab;
namespace fs = std::filesystem;

namespace {

const std::string kPhilly = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/philly-6214e9.csv";

struct WorkloadStats {
  std::size_t jobs = 0;
  double span_s = 0;
  double load_gpu_s_per_s = 0;  // offered load: GPU-seconds of work per second of span
  double one_gpu_share = 0;     // job-size mix: share of 1-GPU jobs
  double eight_plus_share = 0;  // and of jobs of 8 GPUs or more
  double gap_cv = 0;            // burstiness: coefficient of variation of inter-arrival gaps
  double mean_duration_s = 0;
};

WorkloadStats stats_of(const Trace& trace) {
  WorkloadStats s;
  s.jobs = trace.jobs.size();
  std::vector<TimeMs> submits;
  double work = 0;
  double durations = 0;
  for (const JobSpec& job : trace.jobs) {
    submits.push_back(job.submit_ms);
    work += static_cast<double>(job.gpus) * static_cast<double>(job.duration_ms) / 1000.0;
    durations += static_cast<double>(job.duration_ms) / 1000.0;
    s.one_gpu_share += job.gpus == 1 ? 1 : 0;
    s.eight_plus_share += job.gpus >= 8 ? 1 : 0;
  }
  std::sort(submits.begin(), submits.end());
  s.span_s = static_cast<double>(submits.back() - submits.front()) / 1000.0;
  s.load_gpu_s_per_s = work / s.span_s;
  s.one_gpu_share /= static_cast<double>(s.jobs);
  s.eight_plus_share /= static_cast<double>(s.jobs);
  s.mean_duration_s = durations / static_cast<double>(s.jobs);
  std::vector<double> gaps;
  for (std::size_t i = 1; i < submits.size(); ++i)
    gaps.push_back(static_cast<double>(submits[i] - submits[i - 1]));
  const double mean =
      std::accumulate(gaps.begin(), gaps.end(), 0.0) / static_cast<double>(gaps.size());
  double var = 0;
  for (const double g : gaps) var += (g - mean) * (g - mean);
  s.gap_cv = std::sqrt(var / static_cast<double>(gaps.size())) / mean;
  return s;
}

// The mean of `field` over the traces resampled with seeds 1..20.
template <typename Field>
double mean_over_seeds(const Trace& trace, const ResampleSpec& spec, Field field) {
  double total = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed)
    total += field(stats_of(resample_trace(trace, spec, seed)));
  return total / 20.0;
}

bool same_jobs(const Trace& a, const Trace& b) {
  if (a.jobs.size() != b.jobs.size()) return false;
  for (std::size_t i = 0; i < a.jobs.size(); ++i)
    if (a.jobs[i].id != b.jobs[i].id || a.jobs[i].submit_ms != b.jobs[i].submit_ms ||
        a.jobs[i].duration_ms != b.jobs[i].duration_ms || a.jobs[i].gpus != b.jobs[i].gpus)
      return false;
  return true;
}

}  // namespace

TEST_CASE("bootstrap keeps the load, the size and duration mix and the daily cycle", "[resample]") {
  // Pooled over 200 replicates (a bootstrap replicate of a bursty trace varies a lot: its job
  // count has a standard deviation of about half the original's on this trace).
  const Trace philly = read_trace(kPhilly);
  const WorkloadStats original = stats_of(philly);
  const ResampleSpec days = parse_resample("bootstrap");
  const TimeMs day_ms = TimeMs{24} * 3600 * 1000;
  // Arrivals per quarter of the day, on the original's day grid (from its first submission).
  TimeMs t0 = kNever;
  for (const JobSpec& job : philly.jobs) t0 = std::min(t0, job.submit_ms);
  const auto quarters = [&](const Trace& trace, std::array<double, 4>& counts) {
    for (const JobSpec& job : trace.jobs)
      counts[static_cast<std::size_t>((job.submit_ms - t0) % day_ms / (day_ms / 4))] += 1;
  };
  std::array<double, 4> original_quarters{};
  quarters(philly, original_quarters);
  std::array<double, 4> drawn_quarters{};
  double jobs = 0, load = 0, one_gpu = 0, duration_s = 0;
  constexpr int kReplicates = 200;
  for (std::uint64_t seed = 1; seed <= kReplicates; ++seed) {
    const Trace drawn = resample_trace(philly, days, seed);
    const WorkloadStats s = stats_of(drawn);
    // Whole blocks laid end to end: at most the original span rounded up to whole days.
    CHECK(s.span_s * 1000 <
          static_cast<double>((static_cast<TimeMs>(original.span_s * 1000) / day_ms + 1) * day_ms));
    std::set<std::string> ids;
    for (const JobSpec& job : drawn.jobs) ids.insert(job.id);
    CHECK(ids.size() == drawn.jobs.size());  // copies of a day get ids of their own
    jobs += static_cast<double>(s.jobs);
    load += s.load_gpu_s_per_s;
    one_gpu += s.one_gpu_share * static_cast<double>(s.jobs);
    duration_s += s.mean_duration_s * static_cast<double>(s.jobs);
    quarters(drawn, drawn_quarters);
  }
  CHECK(jobs / kReplicates == Approx(static_cast<double>(original.jobs)).epsilon(0.12));
  CHECK(load / kReplicates == Approx(original.load_gpu_s_per_s).epsilon(0.05));
  CHECK(one_gpu / jobs == Approx(original.one_gpu_share).margin(0.01));
  CHECK(duration_s / jobs == Approx(original.mean_duration_s).epsilon(0.10));
  for (std::size_t q = 0; q < 4; ++q)
    CHECK(drawn_quarters[q] / jobs ==
          Approx(original_quarters[q] / static_cast<double>(original.jobs)).margin(0.03));
  // Replicates differ from each other; a seed gives the same replicate again.
  CHECK_FALSE(same_jobs(resample_trace(philly, days, 1), resample_trace(philly, days, 2)));
  CHECK(same_jobs(resample_trace(philly, days, 7), resample_trace(philly, days, 7)));
}

TEST_CASE("jitter keeps the jobs, their order and sizes, and the load within X", "[resample]") {
  const Trace philly = read_trace(kPhilly);
  const WorkloadStats original = stats_of(philly);
  const ResampleSpec spec = parse_resample("jitter:0.2");
  const Trace drawn = resample_trace(philly, spec, 3);
  REQUIRE(drawn.jobs.size() == philly.jobs.size());
  std::vector<std::size_t> order_before(philly.jobs.size());
  std::iota(order_before.begin(), order_before.end(), 0);
  std::vector<std::size_t> order_after = order_before;
  std::stable_sort(order_before.begin(), order_before.end(), [&](std::size_t a, std::size_t b) {
    return philly.jobs[a].submit_ms < philly.jobs[b].submit_ms;
  });
  std::stable_sort(order_after.begin(), order_after.end(), [&](std::size_t a, std::size_t b) {
    return drawn.jobs[a].submit_ms < drawn.jobs[b].submit_ms;
  });
  CHECK(order_before == order_after);
  for (std::size_t j = 0; j < philly.jobs.size(); ++j) {
    CHECK(drawn.jobs[j].id == philly.jobs[j].id);
    CHECK(drawn.jobs[j].gpus == philly.jobs[j].gpus);
    const double ratio = static_cast<double>(drawn.jobs[j].duration_ms) /
                         static_cast<double>(philly.jobs[j].duration_ms);
    CHECK(ratio >= 0.8 - 1e-3);
    CHECK(ratio <= 1.2 + 1e-3);
  }
  const WorkloadStats s = stats_of(drawn);
  CHECK(s.load_gpu_s_per_s == Approx(original.load_gpu_s_per_s).epsilon(0.2));
  CHECK(mean_over_seeds(philly, spec, [](const WorkloadStats& w) { return w.load_gpu_s_per_s; }) ==
        Approx(original.load_gpu_s_per_s).epsilon(0.05));
  CHECK(s.gap_cv == Approx(original.gap_cv).epsilon(0.2));
}

TEST_CASE("window keeps the jobs of one contiguous period", "[resample]") {
  const Trace philly = read_trace(kPhilly);
  const TimeMs week_ms = TimeMs{7} * 24 * 3600 * 1000;
  const Trace drawn = resample_trace(philly, parse_resample("window:7d"), 5);
  REQUIRE_FALSE(drawn.jobs.empty());
  TimeMs first = kNever;
  for (const JobSpec& job : drawn.jobs) first = std::min(first, job.submit_ms);
  // Exactly the original jobs submitted in [first, first + 7 days), in trace order.
  std::vector<std::string> expected;
  for (const JobSpec& job : philly.jobs)
    if (job.submit_ms >= first && job.submit_ms < first + week_ms) expected.push_back(job.id);
  std::vector<std::string> got;
  for (const JobSpec& job : drawn.jobs) got.push_back(job.id);
  CHECK(got == expected);
  CHECK(drawn.jobs.size() < philly.jobs.size());
  // A window longer than the trace keeps every job.
  CHECK(resample_trace(philly, parse_resample("window:3650d"), 5).jobs.size() ==
        philly.jobs.size());
}

TEST_CASE("resample methods are parsed strictly", "[resample]") {
  CHECK(parse_resample("none").kind == ResampleKind::kNone);
  CHECK(parse_resample("bootstrap").block_ms == 24 * 3600 * 1000);
  CHECK(parse_resample("bootstrap:6h").block_ms == 6 * 3600 * 1000);
  CHECK(parse_resample("jitter:0.1").jitter == 0.1);
  CHECK(parse_resample("window:2d").window_ms == 2 * 24 * 3600 * 1000);
  for (const char* bad : {"", "boot", "none:1", "jitter", "jitter:0", "jitter:1", "jitter:x",
                          "window", "window:0", "window:-3", "bootstrap:0", "bootstrap:1y"})
    CHECK_THROWS_AS(parse_resample(bad), ConfigError);
  CHECK_THROWS_WITH(parse_resample("jitter:2"),
                    "--resample 'jitter:2': expected jitter:X with 0 < X < 1, e.g. jitter:0.1");
}

TEST_CASE("a sweep's seeds vary the workload with --resample and record it per cell",
          "[resample][sweep]") {
  const fs::path dir = fs::temp_directory_path() / "schedlab-resample-sweep";
  fs::remove_all(dir);
  const std::string command = std::string(SCHEDLAB_BINARY) + " sweep -q -t " + kPhilly +
                              " -c 32x8:V100 -p fifo --seeds 1-4 --resample bootstrap -o " +
                              dir.string() + " > /dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream cell(dir / "cells" / "0000" / "cell.json");
  const auto definition = nlohmann::json::parse(cell);
  CHECK(definition.at("resample") == "bootstrap");
  std::ifstream aggregate(dir / "aggregate.jsonl");
  const auto row = nlohmann::json::parse(aggregate);
  CHECK(row.at("n") == 4);
  CHECK(row.at("metrics").at("wait_s.mean").at("ci95").get<double>() > 0);
  fs::remove_all(dir);
}
