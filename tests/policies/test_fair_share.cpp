// fair-share: the received shares converge to the weights, the decay is exact (a hand-computed
// decision at a threshold, and every start of random runs against D recomputed by brute force
// from the job history).
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "policies/policy_support.hpp"
#include "policies/tenant_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/random.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Two tenants that always have queued 1-GPU jobs: `per_tenant` each, all submitted at 0, rows
// interleaved (a0, b0, a1, ...), durations spread over 0.5-1.5 h so that GPUs free one by one.
std::string saturating_trace(int per_tenant) {
  std::string csv = "id,submit_time,gpus,duration,tenant\n";
  for (int k = 0; k < per_tenant; ++k) {
    for (int t = 0; t < 2; ++t) {
      const char* tenant = t == 0 ? "a" : "b";
      const int duration_s = 1800 + (k * 7919 + t * 1777) % 3600;
      csv += fmt::format("{}{},0,1,{},{}\n", tenant, k, duration_s, tenant);
    }
  }
  return csv;
}

std::string two_tenants(double weight_a, double weight_b) {
  return fmt::format(
      R"({{"tenants":[{{"name":"a","quota":1,"weight":{}}},{{"name":"b","quota":1,"weight":{}}}]}})",
      weight_a, weight_b);
}

// Tenant a's share of the GPU-time both received in the first 72 h, when both are saturated.
double share_of_a(const SimulationResult& result) {
  constexpr TimeMs kWindowMs = 72LL * 3600 * 1000;
  const auto used = gpu_seconds_until(result, kWindowMs);
  const double a = used.at("a");
  const double b = used.at("b");
  // The cluster was busy throughout the window (64 GPUs).
  CHECK((a + b) / (64.0 * 72 * 3600) == Approx(1.0).margin(0.005));
  return a / (a + b);
}

}  // namespace

TEST_CASE("fair-share: saturating tenants receive GPU-time in proportion to their weights",
          "[tenants][fair-share]") {
  // 12,000 jobs of about 1 GPU-hour on 64 GPUs: both tenants are queued for the whole 72-hour
  // window (each needs at least 3,456 GPU-hours there and has about 6,000).
  const Trace trace = trace_from_csv(saturating_trace(6000));
  SECTION("weights 3:1 give 75% / 25%") {
    const auto result =
        run_checked(trace, "8x8", "fair-share", {}, with_tenants(two_tenants(3, 1)));
    const double a = share_of_a(result);
    INFO("tenant a received " << a);
    CHECK(a == Approx(0.75).margin(0.02));
    CHECK(result.summary["tenants"]["a"]["entitled_share"].get<double>() == Approx(0.75));
  }
  SECTION("weights 1:1 give 50% / 50%") {
    const auto result =
        run_checked(trace, "8x8", "fair-share", {}, with_tenants(two_tenants(1, 1)));
    const double a = share_of_a(result);
    INFO("tenant a received " << a);
    CHECK(a == Approx(0.5).margin(0.02));
  }
  SECTION("fifo over the same trace is not fair, so the check can tell") {
    // Submit order alternates a and b, so fifo splits 50/50 whatever the weights.
    const auto result = run_checked(trace, "8x8", "fifo", {}, with_tenants(two_tenants(3, 1)));
    CHECK(share_of_a(result) == Approx(0.5).margin(0.02));
  }
}

TEST_CASE("fair-share: decayed usage is exact (a decision at the hand-computed threshold)",
          "[tenants][fair-share]") {
  // One 8-GPU node, half-life h = 1 h, equal weights. a1 holds 8 GPUs over [0, 1 h); then b1
  // (b has used nothing) holds them over [1 h, 1 h + X). At T = 1 h + X both a2 and b2 wait;
  // the tenant with less decayed usage goes first:
  //   D_a(T) = 8 (h / ln 2) (1 - 1/2) 2^(-X/h),   D_b(T) = 8 (h / ln 2) (1 - 2^(-X/h)),
  // equal when 2^(-X/h) = 2/3, i.e. X = h log2(1.5) = 2105.87 s. With X = 2095 s b has less
  // (0.33405 vs 0.33190 in units of 8 h / ln 2) and b2 starts first; with X = 2115 s a has
  // less (0.33277 vs 0.33447) and a2 starts first. Without decay (half-life 10^7 s) a's 8 h
  // GPU-hours always outweigh b's X, so b2 goes first.
  const auto run = [](int x_s, const std::string& half_life) {
    const std::string csv = fmt::format(
        "id,submit_time,gpus,duration,tenant\n"
        "a1,0,8,3600,a\n"
        "b1,0,8,{},b\n"
        "a2,10,8,100,a\n"
        "b2,10,8,100,b\n",
        x_s);
    return job_rows(run_checked(trace_from_csv(csv), "1x8", "fair-share",
                                {{"half_life", half_life}}, with_tenants(two_tenants(1, 1))));
  };
  {
    const auto rows = run(2095, "3600");
    CHECK(rows.at("a1").start_ms == 0);
    CHECK(rows.at("b1").start_ms == 3'600'000);
    CHECK(rows.at("b2").start_ms == 5'695'000);
    CHECK(rows.at("a2").start_ms == 5'795'000);
  }
  {
    const auto rows = run(2115, "3600");
    CHECK(rows.at("a2").start_ms == 5'715'000);
    CHECK(rows.at("b2").start_ms == 5'815'000);
  }
  {
    const auto rows = run(2115, "10000000");
    CHECK(rows.at("b2").start_ms == 5'715'000);
    CHECK(rows.at("a2").start_ms == 5'815'000);
  }
}

TEST_CASE("fair-share: usage that changes while nothing is queued is still counted exactly",
          "[tenants][fair-share]") {
  // Two 8-GPU nodes, half-life h = 1000 s, equal weights; c1 holds one node throughout. a1
  // holds the other over [0, 1000) and ends with nothing queued (no call orders jobs then);
  // b1 holds it over [1536, 2000). At 2000 a2 and b2 (queued since 1600) compete for 8 GPUs.
  // In units of 8 h / ln 2: D_a(2000) = (1 - 2^-1) 2^-1 = 0.25 and D_b(2000) = 1 - 2^-0.464
  // = 0.2752, so a has used less and a2 starts first. (Spreading a's 8000 GPU-s evenly over
  // [0, 1500), the next call, would give 0.3047 and put b2 first.)
  const char* csv =
      "id,submit_time,gpus,duration,tenant\n"
      "c1,0,8,10000,c\n"
      "a1,0,8,1000,a\n"
      "b1,1536,8,464,b\n"
      "a2,1600,8,100,a\n"
      "b2,1600,8,100,b\n";
  const auto rows = job_rows(run_checked(
      trace_from_csv(csv), "2x8", "fair-share", {{"half_life", "1000"}},
      with_tenants(R"({"tenants":[{"name":"a","quota":1,"weight":1},)"
                   R"({"name":"b","quota":1,"weight":1},{"name":"c","quota":1,"weight":1}]})")));
  CHECK(rows.at("b1").start_ms == 1'536'000);
  CHECK(rows.at("a2").start_ms == 2'000'000);
  CHECK(rows.at("b2").start_ms == 2'100'000);
}

TEST_CASE("fair-share: usage decayed over millions of half-lives is exactly zero, never NaN",
          "[tenants][fair-share]") {
  // a used 8 GPUs for 100 s at the start; 30 days later a2 and b2 arrive together on the idle
  // 8-GPU node. With a 1 s half-life a's usage has decayed by 2^-2591900: both tenants are at
  // 0, F ties and trace order decides (a2 first). With a half-life of 10^12 s a's usage still
  // counts and b2 goes first.
  const char* csv =
      "id,submit_time,gpus,duration,tenant\n"
      "a1,0,8,100,a\n"
      "a2,2592000,8,100,a\n"
      "b2,2592000,8,100,b\n";
  const TimeMs later_ms = 2'592'000'000;
  for (const char* half_life : {"1", "1000000000000"}) {
    INFO("half_life " << half_life);
    const auto rows =
        job_rows(run_checked(trace_from_csv(csv), "1x8", "fair-share", {{"half_life", half_life}},
                             with_tenants(two_tenants(1, 1))));
    const bool decayed = std::string(half_life) == "1";
    CHECK(rows.at("a2").start_ms == later_ms + (decayed ? 0 : 100'000));
    CHECK(rows.at("b2").start_ms == later_ms + (decayed ? 100'000 : 0));
  }
}

namespace {

struct RandomJob {
  std::string id;
  int tenant = 0;
  int gpus = 1;
  TimeMs submit_ms = 0;
  std::int64_t priority = 0;
};

// Brute force: D_i(t) = sum over i's jobs started before t of gpus * integral over their run
// clipped to t of 2^(-(t - s) / h) ds.
std::vector<double> decayed_usage(const std::vector<RandomJob>& jobs,
                                  const std::map<std::string, JobRow>& rows, int tenants,
                                  TimeMs t_ms, double h_ms) {
  std::vector<double> d(static_cast<std::size_t>(tenants), 0.0);
  for (const auto& job : jobs) {
    const JobRow& row = rows.at(job.id);
    if (row.start_ms < 0 || row.start_ms >= t_ms) continue;
    const double end = static_cast<double>(std::min(row.finish_ms, t_ms));
    const double t = static_cast<double>(t_ms);
    const double start = static_cast<double>(row.start_ms);
    d[static_cast<std::size_t>(job.tenant)] +=
        job.gpus * (h_ms / std::numbers::ln2) *
        (std::exp2(-(t - end) / h_ms) - std::exp2(-(t - start) / h_ms));
  }
  return d;
}

}  // namespace

TEST_CASE("fair-share: every start follows F recomputed by brute force from the job history",
          "[tenants][fair-share][properties]") {
  // With blocking=true the jobs started at an instant are a prefix of the policy's order at that
  // instant, so each of them must come before every job left waiting then. The order is
  // checked with D recomputed from jobs.csv alone: (score desc, priority desc, submit, index),
  // score = 2^(-U/S) + age_weight * min(1, age / max_age).
  int checked_across_tenants = 0;
  int checked_by_score = 0;
  for (std::uint64_t seed = 1; seed <= 48; ++seed) {
    Rng rng(seed);
    const int tenants = 3;
    std::vector<double> weights;
    for (int t = 0; t < tenants; ++t)
      weights.push_back(seed % 6 == 0 && t == 2 ? 0.0 : static_cast<double>(rng.uniform_int(1, 4)));
    const double h_ms = 1000.0 * static_cast<double>(std::vector<int>{60, 300, 3600}[seed % 3]);
    const double age_weight = seed % 2 == 0 ? 0.5 : 0.0;
    const double max_age_ms = 200'000;
    std::vector<RandomJob> jobs;
    std::string csv = "id,submit_time,gpus,duration,priority,tenant\n";
    // Loads from heavy (the queue never empties) to light (jobs often end with nothing queued,
    // so usage changes between the calls that order jobs).
    const double interarrival_s = std::vector<double>{25, 60, 120, 200}[seed % 4];
    double submit_s = 0;
    for (int j = 0; j < 40; ++j) {
      submit_s += std::round(rng.exponential(interarrival_s));
      RandomJob job;
      job.id = fmt::format("j{}", j);
      job.tenant = static_cast<int>(rng.uniform_int(0, tenants - 1));
      job.gpus = static_cast<int>(rng.uniform_int(1, 4));
      job.submit_ms = static_cast<TimeMs>(submit_s) * 1000;
      job.priority = rng.uniform_int(0, 1);
      const auto duration_s = rng.uniform_int(20, 400);
      csv += fmt::format("{},{},{},{},{},t{}\n", job.id, submit_s, job.gpus, duration_s,
                         job.priority, job.tenant);
      jobs.push_back(job);
    }
    std::string tenants_json = R"({"tenants":[)";
    for (int t = 0; t < tenants; ++t)
      tenants_json += fmt::format(R"({}{{"name":"t{}","quota":1,"weight":{}}})", t ? "," : "", t,
                                  weights[static_cast<std::size_t>(t)]);
    tenants_json += "]}";
    const auto result = run_checked(trace_from_csv(csv), "2x4", "fair-share",
                                    {{"half_life", fmt::format("{}", h_ms / 1000)},
                                     {"age_weight", fmt::format("{}", age_weight)},
                                     {"max_age", "200"},
                                     {"blocking", "true"}},
                                    with_tenants(tenants_json));
    const auto rows = job_rows(result);
    double weight_sum = 0;
    for (double w : weights) weight_sum += w;

    std::set<TimeMs> instants;
    for (const auto& [id, row] : rows) instants.insert(row.start_ms);
    for (const TimeMs t_ms : instants) {
      const auto d = decayed_usage(jobs, rows, tenants, t_ms, h_ms);
      double d_sum = 0;
      for (double v : d) d_sum += v;
      auto score = [&](const RandomJob& job) {
        const double s = weights[static_cast<std::size_t>(job.tenant)] / weight_sum;
        const double u = d_sum > 0 ? d[static_cast<std::size_t>(job.tenant)] / d_sum : 0.0;
        const double f = s > 0 ? std::exp2(-u / s) : 0.0;
        const double age = std::min(1.0, static_cast<double>(t_ms - job.submit_ms) / max_age_ms);
        return f + age_weight * age;
      };
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        if (rows.at(jobs[j].id).start_ms != t_ms) continue;
        for (std::size_t k = 0; k < jobs.size(); ++k) {
          const JobRow& other = rows.at(jobs[k].id);
          if (jobs[k].submit_ms > t_ms || other.start_ms <= t_ms) continue;  // not waiting at t
          INFO("seed " << seed << ": " << jobs[j].id << " started at " << t_ms << " ms before "
                       << jobs[k].id << " (tenants t" << jobs[j].tenant << ", t" << jobs[k].tenant
                       << ")");
          const double sj = score(jobs[j]);
          const double sk = score(jobs[k]);
          if (jobs[j].tenant != jobs[k].tenant) ++checked_across_tenants;
          if (sj != sk) {
            if (std::abs(sj - sk) <= 1e-9) continue;  // too close to call in floating point
            ++checked_by_score;
            CHECK(sj > sk);
          } else if (jobs[j].priority != jobs[k].priority) {
            CHECK(jobs[j].priority > jobs[k].priority);
          } else {
            CHECK(std::make_pair(jobs[j].submit_ms, j) < std::make_pair(jobs[k].submit_ms, k));
          }
        }
      }
    }
  }
  CHECK(checked_across_tenants > 200);
  CHECK(checked_by_score > 200);
}

TEST_CASE("fair-share: parameters are checked", "[tenants][fair-share]") {
  CHECK_THROWS_AS(make_policy("fair-share", {{"half_life", "0"}}), ConfigError);
  CHECK_THROWS_AS(make_policy("fair-share", {{"age_weight", "-1"}}), ConfigError);
  CHECK_THROWS_AS(make_policy("fair-share", {{"blocking", "perhaps"}}), ConfigError);
  CHECK(registered_policies().size() >= 2);
  CHECK(policy_uses_tenants("fair-share"));
  CHECK(policy_uses_tenants("drf"));
  CHECK_FALSE(policy_uses_tenants("fifo"));
}
