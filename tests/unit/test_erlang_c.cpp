// Check against queueing theory: 1-GPU jobs with Poisson arrivals and exponential durations on
// c GPUs under FIFO form an M/M/c queue, whose mean wait is given by the Erlang C formula.
#include <catch2/catch.hpp>

#include <cmath>

#include "schedlab/random.hpp"
#include "support/builders.hpp"

using namespace schedlab;

namespace {

// Mean wait in queue of M/M/c with arrival rate lambda and service rate mu per server.
double erlang_c_mean_wait(int c, double lambda, double mu) {
  const double a = lambda / mu;  // offered load in servers
  const double rho = a / c;
  double sum = 0;
  double term = 1;  // a^k / k!
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  const double tail = term / (1 - rho);  // a^c / c! / (1 - rho)
  const double p_wait = tail / (sum + tail);
  return p_wait / (c * mu - lambda);
}

double simulated_mean_wait(int gpus, double lambda, double mu, std::uint64_t jobs,
                           std::uint64_t seed) {
  Trace trace;
  trace.path = "mmc";
  Rng rng(seed);
  double clock_s = 0;
  for (std::uint64_t i = 0; i < jobs; ++i) {
    JobSpec job;
    job.id = std::to_string(i);
    job.submit_ms = static_cast<TimeMs>(std::llround(clock_s * 1000));
    job.gpus = 1;
    job.duration_ms =
        std::max<TimeMs>(1, static_cast<TimeMs>(std::llround(rng.exponential(1 / mu) * 1000)));
    trace.jobs.push_back(job);
    clock_s += rng.exponential(1 / lambda);
  }
  const auto result = schedlab::testing::run_checked(trace, "1x" + std::to_string(gpus));
  return result.summary["wait_s"]["mean"].get<double>();
}

}  // namespace

TEST_CASE("Erlang C formula: known values", "[theory]") {
  // M/M/1: Wq = rho / (mu - lambda).
  CHECK(erlang_c_mean_wait(1, 0.5, 1.0) == Approx(1.0));
  // M/M/2, lambda = 1, mu = 1: P(wait) = 1/3, Wq = 1/3.
  CHECK(erlang_c_mean_wait(2, 1.0, 1.0) == Approx(1.0 / 3.0));
}

TEST_CASE("FIFO on an M/M/c workload matches the Erlang C mean wait", "[theory][fifo]") {
  const int c = 8;
  const double mu = 1.0 / 100.0;  // mean duration 100 s
  for (double rho : {0.7, 0.85}) {
    const double lambda = rho * c * mu;
    const double expected = erlang_c_mean_wait(c, lambda, mu);
    const double simulated = simulated_mean_wait(c, lambda, mu, 200'000, 7);
    INFO("rho=" << rho << " expected=" << expected << " simulated=" << simulated);
    CHECK(simulated == Approx(expected).epsilon(0.05));
  }
  // The check can fail: the same workload on one GPU fewer waits far longer.
  const double lambda = 0.7 * c * mu;
  CHECK(simulated_mean_wait(c - 1, lambda, mu, 50'000, 7) >
        1.5 * erlang_c_mean_wait(c, lambda, mu));
}
