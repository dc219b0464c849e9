// TenantMetrics: an observer of who waits. Per tenant: jobs, waits, completion times, bounded
// slowdowns, GPU-hours received against the entitled share, how long its jobs waited while it
// held less than its entitlement, and its demand-aware share (GPU time received against its
// weighted max-min fair allocation given every tenant's demand, while jobs wait); across
// tenants: Jain's index and the minimum of the demand-aware shares, Jain's index of whole-run
// received / entitled shares, the worst tenant's mean bounded slowdown and the max/min ratio of
// mean waits. It renders the
// summary's `tenants` and `fairness` objects, tenants.csv and per-tenant GPU columns of
// timeseries.csv. Definitions: docs/tenants.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/demand_share.hpp"
#include "schedlab/metrics.hpp"
#include "schedlab/observer.hpp"

namespace schedlab {

class TenantMetrics final : public Observer, public SeriesColumns {
 public:
  // keep_series: keep per-tenant GPU-time per timeseries row (for timeseries.csv).
  explicit TenantMetrics(bool keep_series) : keep_series_(keep_series) {}

  void on_begin(const RunView& ctx) override;
  void on_job(const RunView& ctx, JobIndex job, JobTransition what) override;
  void on_end(const RunView& ctx) override;

  // Finish-time fairness per tenant from isolated baselines (unset: undefined for that tenant);
  // the outputs report it only when it was set.
  void set_finish_time_fairness(std::vector<std::optional<double>> rho) {
    rho_ = std::move(rho);
    rho_set_ = true;
  }

  // Render after the run, before the engine is destroyed. Key order is fixed.
  nlohmann::ordered_json tenants_json() const;
  nlohmann::ordered_json fairness_json() const;
  std::string tenants_csv() const;

  // SeriesColumns: one column per tenant, "gpus.<tenant>", its mean busy GPUs in the row.
  void append_header(std::string& out) const override;
  void append_row(std::string& out, TimeMs start_ms, TimeMs covered_ms) const override;

  // One tenant's figures, as the summary reports them (exposed for tests).
  struct Figures {
    std::uint64_t submitted = 0;
    std::uint64_t completed = 0;
    std::uint64_t rejected = 0;
    double wait_mean_s = 0;
    double wait_p95_s = 0;
    double wait_max_s = 0;
    double jct_mean_s = 0;
    double bounded_slowdown_mean = 0;
    double gpu_hours = 0;
    double received_share = 0;
    double waited_under_entitlement_share = 0;
    double waited_under_entitlement_s = 0;
    double entitlement_deficit_gpu_h = 0;
    // While some job waits: its weighted max-min fair allocation and what it held, and their
    // ratio (unset when the allocation is 0: nothing owed, no share to speak of).
    double demand_fair_gpu_h = 0;
    double demand_received_gpu_h = 0;
    std::optional<double> demand_share;
    bool finished_jobs = false;  // at least one job completed or was killed
  };
  // Computed once, when the run ends.
  const std::vector<Figures>& figures() const;

 private:
  std::vector<Figures> compute_figures() const;
  // Each tenant's state since its last change, integrated lazily at its next change.
  struct Account {
    std::int64_t queued_jobs = 0;
    std::int64_t busy_gpus = 0;
    TimeMs changed_ms = 0;
    std::int64_t queued_gpus = 0;                       // GPUs its queued jobs ask for
    std::map<std::int64_t, std::int64_t> queued_sizes;  // queued jobs by GPU count
    TimeMs waiting_ms = 0;                              // time with at least one job queued
    // ... while one of its queued jobs would fit within its entitlement (held + job's GPUs <=
    // entitled GPUs): the time it waited below what it is owed
    TimeMs waiting_under_ms = 0;
    // Integral of max(0, min(held + queued GPUs, entitled GPUs) - held): GPU-ms it was owed
    // and asked for but did not hold.
    double deficit_gpu_ms = 0;
    std::vector<std::pair<std::uint64_t, double>> series;  // (row, busy GPU-ms), rows ascending
  };
  void integrate(TenantIndex tenant, TimeMs now_ms);

  bool keep_series_ = true;
  std::int64_t queued_jobs_ = 0;  // across tenants
  std::optional<DemandShare> demand_share_;
  std::vector<DemandShare::Totals> demand_totals_;  // per tenant, after on_end
  std::vector<Figures> figures_;                    // per tenant, after on_end
  const RunView* ctx_ = nullptr;
  TimeMs interval_ms_ = 300'000;
  std::vector<Account> accounts_;
  std::vector<double> entitled_gpus_;
  std::vector<std::optional<double>> rho_;
  bool rho_set_ = false;
  mutable std::vector<std::size_t> series_cursor_;  // append_row's position per tenant
};

}  // namespace schedlab
