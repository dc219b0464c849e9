// The demand-aware share: DemandShare's offline integration against a direct water-filling at
// every instant (random histories), a hand-computed two-tenant case, and the water-filling itself.
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "schedlab/demand_share.hpp"

using namespace schedlab;

TEST_CASE("weighted max-min allocation fills by weight and caps at demand", "[demand-share]") {
  // 12 GPUs, weights 1:1:2; demand 2 is met, the rest share 10 by weight 1:2 (3.33, 6.67),
  // and the third's demand 5 caps it: the second gets 12 - 2 - 5 = 5.
  const auto a = weighted_max_min_allocation(12, {2, 9, 5}, {1, 1, 2});
  CHECK(a[0] == Approx(2));
  CHECK(a[1] == Approx(5));
  CHECK(a[2] == Approx(5));
  // Enough for everyone: each gets its demand; a weight of 0 gets nothing.
  const auto b = weighted_max_min_allocation(100, {3, 4, 7}, {1, 0, 2});
  CHECK(b[0] == Approx(3));
  CHECK(b[1] == 0);
  CHECK(b[2] == Approx(7));
  // Equal weights, all over: equal split.
  const auto c = weighted_max_min_allocation(8, {8, 8}, {0.5, 0.5});
  CHECK(c[0] == Approx(4));
  CHECK(c[1] == Approx(4));
}

TEST_CASE("demand-aware share by hand: two tenants on 8 GPUs", "[demand-share]") {
  // Equal weights. 0-10 s: a holds 8 and has nothing queued, b queues 4 GPUs (one job waits):
  // fair a 4, b 4; received a 8, b 0. 10-30 s: a holds 4, b holds 4, nothing waits (not
  // counted). 30-40 s: a holds 4 and queues 4 (demand 8), b holds 4 (demand 4): fair 4 and 4,
  // received 4 and 4.
  DemandShare share(8, {0.5, 0.5});
  share.record(0, 0, 8, 8, 0);
  share.record(0, 1, 4, 0, 1);
  share.record(10'000, 0, 4, 4, 1);
  share.record(10'000, 1, 4, 4, 0);
  share.record(30'000, 0, 8, 4, 1);
  const auto totals = share.totals(40'000);
  REQUIRE(totals.size() == 2);
  CHECK(totals[0].fair_gpu_ms == Approx(4 * 10'000 + 4 * 10'000));
  CHECK(totals[0].received_gpu_ms == Approx(8 * 10'000 + 4 * 10'000));
  CHECK(totals[1].fair_gpu_ms == Approx(4 * 10'000 + 4 * 10'000));
  CHECK(totals[1].received_gpu_ms == Approx(0 + 4 * 10'000));
  // Shares 1.5 and 0.5: a got more than its fair allocation while b waited.
}

TEST_CASE("demand-aware share equals water-filling at every instant", "[demand-share]") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const std::size_t tenants = 1 + rng() % 7;
    const std::int64_t capacity = 1 + static_cast<std::int64_t>(rng() % 32);
    std::vector<double> weights(tenants);
    double weight_sum = 0;
    for (auto& w : weights) {
      w = (rng() % 5 == 0) ? 0.0 : static_cast<double>(1 + rng() % 4);
      weight_sum += w;
    }
    for (auto& w : weights) w = weight_sum > 0 ? w / weight_sum : 0.0;
    DemandShare share(capacity, weights);
    std::vector<std::int64_t> demand(tenants, 0);
    std::vector<std::int64_t> held(tenants, 0);
    std::int64_t queued = 0;
    std::vector<double> fair(tenants, 0.0);
    std::vector<double> received(tenants, 0.0);
    TimeMs now_ms = 0;
    for (int step = 0; step < 60; ++step) {
      const auto tenant = static_cast<TenantIndex>(rng() % tenants);
      held[tenant] = static_cast<std::int64_t>(rng() % 12);
      demand[tenant] = held[tenant] + static_cast<std::int64_t>(rng() % 3 == 0 ? 0 : rng() % 20);
      queued = static_cast<std::int64_t>(rng() % 3);
      share.record(now_ms, tenant, demand[tenant], held[tenant], queued);
      const TimeMs next_ms = now_ms + static_cast<TimeMs>(rng() % 4 == 0 ? 0 : 1 + rng() % 5000);
      if (queued > 0) {
        std::vector<double> d(demand.begin(), demand.end());
        const auto allocation =
            weighted_max_min_allocation(static_cast<double>(capacity), d, weights);
        for (std::size_t t = 0; t < tenants; ++t) {
          fair[t] += allocation[t] * static_cast<double>(next_ms - now_ms);
          received[t] += static_cast<double>(held[t]) * static_cast<double>(next_ms - now_ms);
        }
      }
      now_ms = next_ms;
    }
    const auto totals = share.totals(now_ms);
    for (std::size_t t = 0; t < tenants; ++t) {
      INFO("round " << round << " tenant " << t);
      CHECK(totals[t].fair_gpu_ms == Approx(fair[t]).margin(1e-6));
      CHECK(totals[t].received_gpu_ms == Approx(received[t]).margin(1e-6));
    }
  }
}
