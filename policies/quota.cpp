// quota — per-tenant queues with nominal quotas, borrowing within a cohort, and reclaim.
//
// Algorithm (Kubernetes Kueue's ClusterQueues and cohorts; docs/tenants.md): each tenant has a
// queue (FIFO by submit time, or with order=priority by priority, then submit time; ties by
// trace order) and a nominal quota q in GPUs (in all, or per GPU type: then every rule below
// holds per type). Of q, min(q, lending_limit) is lendable to its cohort and the rest is
// guaranteed to the tenant alone. A tenant's jobs may use, in all, its nominal quota plus up to
// borrowing_limit more GPUs, provided the cohort's pool is not overdrawn: the sum over the
// cohort's tenants of max(0, used - guaranteed) stays within the sum of their lendable parts.
// Each call, tenants are visited in the order of their head jobs:
//   1. heads that fit within their tenant's nominal quota start if the pool and the free GPUs
//      allow it. Otherwise, with reclaim=preempt, the running jobs of tenants of the cohort
//      that use more than their own nominal quota (borrowers) are preempted in Kueue's order:
//      lowest job priority first, then most recently started, then larger job index, until the
//      head can start; if even all of them would not make room, nothing is preempted;
//   2. then heads beyond their tenant's nominal quota start if borrowing is allowed and the
//      borrowing limit, the pool and the free GPUs allow it.
// A head that cannot start blocks its own tenant's later jobs (head-of-line blocking per
// tenant), never another tenant's. With borrowing=false each tenant is a hard partition of its
// nominal quota. A job that can never fit its tenant's limits stays queued and blocks its tenant
// (the run then stops with exit 3 naming it).
// Reclaim preempts at once, whatever the victims' progress: the reclaiming tenant stays within
// its quota and borrowers never preempt, so no job is preempted by one it preempted.
//
// Cost: the heads, and the heads that fit their tenant's nominal quota, stay ordered between
// calls, and usage is re-read only for the tenants whose jobs started or stopped, so a call
// costs O(log tenants) per head it visits: pass 1 visits only heads within a nominal quota (at
// most the quotas' GPUs of them), pass 2 stops when no GPU is free. Reclaim walks the cohort's
// running preemptible jobs in that order until the head fits.
//
// Parameters: order (fifo | priority), borrowing (true), reclaim (preempt | none).
// Citation: Kubernetes Kueue, "Cluster Queue: cohorts, borrowing and lending limits,
// preemption" (kueue.sigs.k8s.io/docs/concepts/cluster_queue/); hard partitions as in the
// virtual clusters of Microsoft Philly (Jeon et al., "Analysis of Large-Scale Multi-Tenant GPU
// Clusters for DNN Training Workloads", USENIX ATC 2019).
#include <algorithm>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "schedlab/error.hpp"
#include "schedlab/greedy_policy.hpp"
#include "schedlab/policy_kit.hpp"

namespace schedlab {
namespace {

constexpr const char* kName = "quota";

std::int64_t saturating_sum(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? kUnlimitedGpus : out;
}

class QuotaPolicy final : public Policy {
 public:
  QuotaPolicy(bool by_priority, bool borrowing, bool reclaim)
      : by_priority_(by_priority), borrowing_(borrowing), reclaim_(reclaim) {}

  void on_begin(const SchedContext& ctx, const RunSizes& /*sizes*/) override {
    const TenantTable& table = ctx.tenants();
    per_type_ = table.per_type();
    dims_ = per_type_ ? ctx.cluster().gpu_types().size() : 1;
    const std::size_t tenants = table.size();
    const std::size_t cohorts = table.cohorts().size();
    queues_.assign(tenants, {});
    nominal_.assign(tenants * dims_, 0);
    guaranteed_.assign(tenants * dims_, 0);
    pool_.assign(cohorts * dims_, 0);
    pool_used_.assign(cohorts * dims_, 0);
    used_.assign(tenants * dims_, 0);
    limits_.assign(tenants, 0);
    cohort_of_.assign(tenants, 0);
    over_.assign(tenants, 0);
    over_in_cohort_.assign(cohorts, 0);
    head_.assign(tenants, Entry{});
    head_listed_.assign(tenants, 0);
    within_listed_.assign(tenants, 0);
    dirty_.assign(tenants, 0);
    dirty_list_.clear();
    failed_call_.assign(tenants, 0);
    call_ = 0;
    heads_.clear();
    within_heads_.clear();
    preemptible_running_.assign(cohorts, {});
    for (TenantIndex t = 0; t < tenants; ++t) {
      const Tenant& tenant = table.tenant(t);
      limits_[t] = tenant.borrowing_limit_gpus;
      cohort_of_[t] = tenant.cohort;
      for (std::size_t d = 0; d < dims_; ++d) {
        const std::int64_t quota = per_type_ ? tenant.quota_by_type[d] : tenant.quota_gpus;
        const std::int64_t lendable = std::min(quota, tenant.lending_limit_gpus);
        nominal_[t * dims_ + d] = quota;
        guaranteed_[t * dims_ + d] = quota - lendable;
        pool_[tenant.cohort * dims_ + d] += lendable;
      }
    }
  }

  void on_submit(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }
  void on_finish(const SchedContext& ctx, JobIndex job) override { stopped(ctx, job); }
  void on_requeue(const SchedContext& ctx, JobIndex job) override {
    stopped(ctx, job);
    enqueue(ctx, job);
  }

  // Visits tenants in the order of their head jobs, as the header says. Only the tenants whose
  // head may fit their nominal quota are visited in pass 1 (within_heads_); every other queued
  // tenant's head borrows and waits for pass 2, which walks all heads in order (heads_) while
  // GPUs are free. Both walks take the first listed head after the last one visited, so a head
  // that becomes listed behind the walk (a reclaim victim's tenant) is left for pass 2, exactly
  // as a heap over all heads built at the start of the pass would classify it.
  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    snapshot(ctx);
    ++call_;
    // Pass 1: heads within their nominal quota (with reclaim).
    HeadKey last{};
    bool walked = false;  // whether `last` is set
    while (true) {
      const auto it = walked ? within_heads_.upper_bound(last) : within_heads_.begin();
      if (it == within_heads_.end()) break;
      last = *it;
      walked = true;
      const TenantIndex t = it->second;
      const JobIndex job = it->first.second;
      const std::optional<Demand> demand = demand_of(ctx, decisions, job);
      if (demand && !within(t, *demand, false)) continue;  // borrows: pass 2
      bool started =
          ctx.capacity_left() && demand && admissible(t, *demand) && start(ctx, decisions, t, job);
      if (!started && reclaim_) started = reclaim_for(ctx, decisions, t, job);
      if (!started) failed_call_[t] = call_;  // done for this call
    }
    if (!borrowing_) return;
    // Pass 2: heads that borrow from the cohort (every queued tenant not done in pass 1).
    walked = false;
    while (ctx.capacity_left()) {
      const auto it = walked ? heads_.upper_bound(last) : heads_.begin();
      if (it == heads_.end()) break;
      last = *it;
      walked = true;
      const TenantIndex t = it->second;
      if (failed_call_[t] == call_) continue;
      const JobIndex job = it->first.second;
      const std::optional<Demand> demand = demand_of(ctx, decisions, job);
      if (demand && admissible(t, *demand)) start(ctx, decisions, t, job);
    }
  }

 private:
  using Entry = std::pair<OrderKey, JobIndex>;
  using HeadKey = std::pair<Entry, TenantIndex>;
  using Demand = std::vector<std::int64_t>;  // GPUs per dimension (all, or per GPU type)

  Entry entry_of(const SchedContext& ctx, JobIndex job) const {
    const JobView view = ctx.job(job);
    return {
        by_priority_ ? OrderKey{-view.priority(), view.submit_ms()} : OrderKey{view.submit_ms(), 0},
        job};
  }
  void enqueue(const SchedContext& ctx, JobIndex job) {
    const TenantIndex t = ctx.tenants().of_job(job);
    queues_[t].insert(entry_of(ctx, job));
    relist(ctx, t);
  }
  void stopped(const SchedContext& ctx, JobIndex job) {
    const TenantIndex t = ctx.tenants().of_job(job);
    preemptible_running_[cohort_of_[t]].erase(victim_key(ctx, job, ctx.job(job).last_start_ms()));
    mark_dirty(t);
  }
  // The tenant's usage changed (or may have): re-read it from the engine at the next call.
  void mark_dirty(TenantIndex t) {
    if (dirty_[t] != 0) return;
    dirty_[t] = 1;
    dirty_list_.push_back(t);
  }

  // Keeps heads_ (every queued tenant's head) and within_heads_ (the heads that may fit their
  // tenant's nominal quota) up to date after t's queue or usage changed.
  void relist(const SchedContext& ctx, TenantIndex t) {
    if (head_listed_[t] != 0) heads_.erase({head_[t], t});
    if (within_listed_[t] != 0) within_heads_.erase({head_[t], t});
    head_listed_[t] = 0;
    within_listed_[t] = 0;
    if (queues_[t].empty()) return;
    head_[t] = *queues_[t].begin();
    heads_.emplace(head_[t], t);
    head_listed_[t] = 1;
    if (may_be_within(ctx, t)) {
      within_heads_.emplace(head_[t], t);
      within_listed_[t] = 1;
    }
  }
  // Whether t's head may fit t's nominal quota: exactly when its demand is known without a
  // placement; always when it depends on one (an untyped job with per-type quotas).
  bool may_be_within(const SchedContext& ctx, TenantIndex t) const {
    const JobView view = ctx.job(head_[t].second);
    if (per_type_ && view.gpu_type() == kAnyGpuType) return true;
    Demand demand(dims_, 0);
    demand[per_type_ ? view.gpu_type() : 0] = view.gpus();
    return within(t, demand, false);
  }

  // Each tenant's GPUs in use by dimension, and each cohort's draw on its pool, from the
  // engine's usage (the one owner): re-read for the tenants whose usage changed since the last
  // call; kept up to date below as this call starts and preempts.
  void snapshot(const SchedContext& ctx) {
    const TenantUsage& usage = ctx.tenant_usage();
    for (const TenantIndex t : dirty_list_) {
      dirty_[t] = 0;
      add_pool_draw(t, -1);
      for (std::size_t d = 0; d < dims_; ++d)
        used_[t * dims_ + d] =
            usage.busy_gpus(t, per_type_ ? static_cast<GpuTypeIndex>(d) : kAnyGpuType);
      add_pool_draw(t, 1);
      relist(ctx, t);
    }
    dirty_list_.clear();
  }
  // Adds (sign 1) or removes (-1) t's draw on its cohort's pool and its count as a borrower.
  void add_pool_draw(TenantIndex t, int sign) {
    const std::uint32_t cohort = cohort_of_[t];
    for (std::size_t d = 0; d < dims_; ++d)
      pool_used_[cohort * dims_ + d] +=
          sign * std::max<std::int64_t>(0, used_[t * dims_ + d] - guaranteed_[t * dims_ + d]);
    if (sign < 0) {
      over_in_cohort_[cohort] -= over_[t];
    } else {
      over_[t] = over_nominal(t) ? 1 : 0;
      over_in_cohort_[cohort] += over_[t];
    }
  }
  void change_use(TenantIndex t, const Demand& demand, int sign) {
    add_pool_draw(t, -1);
    for (std::size_t d = 0; d < dims_; ++d) used_[t * dims_ + d] += sign * demand[d];
    add_pool_draw(t, 1);
  }

  // The GPUs per dimension `job` would take now: its GPU count, or per GPU type from its
  // placement on a cluster of several types when it is not bound to one (nullopt: no room).
  std::optional<Demand> demand_of(const SchedContext& ctx, const Decisions& decisions,
                                  JobIndex job) const {
    Demand demand(dims_, 0);
    const JobView view = ctx.job(job);
    if (!per_type_) {
      demand[0] = view.gpus();
    } else if (view.gpu_type() != kAnyGpuType) {
      demand[view.gpu_type()] = view.gpus();
    } else {
      const auto placement = decisions.find_placement(job);
      if (!placement) return std::nullopt;
      add_placement(ctx.cluster(), *placement, demand);
    }
    return demand;
  }
  void add_placement(const Cluster& cluster, const Placement& placement, Demand& demand) const {
    for (const auto& a : placement)
      demand[per_type_ ? cluster.node(a.node).type : 0] += a.gpu_count();
  }

  // Whether `demand` more keeps tenant `t` within its nominal quota (or, with `borrow`, within
  // nominal quota + borrowing limit).
  bool within(TenantIndex t, const Demand& demand, bool borrow) const {
    const std::int64_t extra = borrow ? borrowing_limit(t) : 0;
    for (std::size_t d = 0; d < dims_; ++d)
      if (used_[t * dims_ + d] + demand[d] > saturating_sum(nominal_[t * dims_ + d], extra))
        return false;
    return true;
  }
  std::int64_t borrowing_limit(TenantIndex t) const { return limits_[t]; }

  // The quota rules for `demand` more GPUs for tenant `t`: its limits and its cohort's pool.
  bool admissible(TenantIndex t, const Demand& demand) const {
    if (!within(t, demand, borrowing_)) return false;
    const std::uint32_t cohort = cohort_of_[t];
    for (std::size_t d = 0; d < dims_; ++d) {
      const std::int64_t used = used_[t * dims_ + d];
      const std::int64_t guaranteed = guaranteed_[t * dims_ + d];
      const std::int64_t draw_before = std::max<std::int64_t>(0, used - guaranteed);
      const std::int64_t draw_after = std::max<std::int64_t>(0, used + demand[d] - guaranteed);
      if (pool_used_[cohort * dims_ + d] - draw_before + draw_after > pool_[cohort * dims_ + d])
        return false;
    }
    return true;
  }

  bool start(const SchedContext& ctx, Decisions& decisions, TenantIndex t, JobIndex job) {
    const auto placement = decisions.find_placement(job);
    if (!placement) return false;
    Demand demand(dims_, 0);
    add_placement(ctx.cluster(), *placement, demand);
    if (!admissible(t, demand)) return false;
    decisions.start(job, *placement);
    queues_[t].erase(queues_[t].begin());
    if (ctx.job(job).preemptible())
      preemptible_running_[cohort_of_[t]].insert(victim_key(ctx, job, ctx.now()));
    change_use(t, demand, 1);
    mark_dirty(t);
    relist(ctx, t);
    return true;
  }

  // Preempts borrowers of t's cohort in victim order (VictimKey), until `job` (t's head,
  // within t's nominal quota) can start; then starts it. Plans on the what-if cluster first:
  // nothing is preempted unless the job then starts.
  bool reclaim_for(const SchedContext& ctx, Decisions& decisions, TenantIndex t, JobIndex job) {
    // Victims are planned in whole GPUs: a job asking for part of a GPU, CPU or memory waits
    // for room instead (docs/gpu-sharing.md).
    if (ctx.job(job).uses_sharing()) return false;
    const TenantTable& table = ctx.tenants();
    const std::uint32_t cohort = cohort_of_[t];
    // Candidates: running preemptible jobs of the cohort's other tenants above their nominal
    // quota, lowest priority first, then newest, then larger job index.
    if (over_in_cohort_[cohort] - over_[t] == 0) return false;
    const JobView view = ctx.job(job);
    WhatIf& what_if = ctx.what_if();
    std::vector<std::pair<JobIndex, Demand>> victims;  // with the GPUs each holds
    std::optional<Placement> placement;
    const auto& running = preemptible_running_[cohort];
    for (auto it = running.rbegin(); it != running.rend(); ++it) {
      const JobIndex victim = std::get<2>(*it);
      const TenantIndex s = table.of_job(victim);
      if (s == t) continue;
      Demand held(dims_, 0);
      add_placement(ctx.cluster(), ctx.job(victim).placement(), held);
      // Above its nominal quota in a dimension the job uses (so, above it when the reclaim
      // began: usage only falls while victims are chosen).
      if (!still_borrowing(s, held)) continue;
      what_if.release(victim);
      change_use(s, held, -1);
      victims.emplace_back(victim, std::move(held));
      placement = what_if.place(view.gpu_type(), view.gpus());
      if (!placement) continue;
      Demand demand(dims_, 0);
      add_placement(ctx.cluster(), *placement, demand);
      if (within(t, demand, false) && admissible(t, demand)) break;
      placement.reset();
    }
    if (victims.empty()) return false;
    what_if.reset();
    for (auto it = victims.rbegin(); it != victims.rend(); ++it)
      change_use(table.of_job(it->first), it->second, 1);
    if (!placement) return false;
    for (const auto& [victim, held] : victims) {
      const TenantIndex s = table.of_job(victim);
      decisions.preempt(victim);
      stopped(ctx, victim);
      change_use(s, held, -1);
      relist(ctx, s);
    }
    const bool started = start(ctx, decisions, t, job);
    SCHEDLAB_ASSERT(started, "a reclaiming job starts once the borrowers are preempted");
    return started;
  }

  bool over_nominal(TenantIndex s) const {
    for (std::size_t d = 0; d < dims_; ++d)
      if (used_[s * dims_ + d] > nominal_[s * dims_ + d]) return true;
    return false;
  }
  // Whether tenant s, holding `held` in a running job, is above its nominal quota in a
  // dimension that job uses (so preempting it takes back borrowed GPUs).
  bool still_borrowing(TenantIndex s, const Demand& held) const {
    for (std::size_t d = 0; d < dims_; ++d)
      if (held[d] > 0 && used_[s * dims_ + d] > nominal_[s * dims_ + d]) return true;
    return false;
  }

  bool by_priority_;
  bool borrowing_;
  bool reclaim_;
  bool per_type_ = false;
  std::size_t dims_ = 1;
  std::vector<std::set<Entry>> queues_;       // per tenant
  std::vector<std::int64_t> nominal_;         // [tenant * dims + d]
  std::vector<std::int64_t> guaranteed_;      // [tenant * dims + d]: nominal - lendable
  std::vector<std::int64_t> limits_;          // per tenant: borrowing limit
  std::vector<std::uint32_t> cohort_of_;      // per tenant
  std::vector<std::int64_t> pool_;            // [cohort * dims + d]: sum of lendable parts
  std::vector<std::int64_t> pool_used_;       // [cohort * dims + d]: sum of draws beyond guaranteed
  std::vector<std::int64_t> used_;            // [tenant * dims + d]: GPUs in use (this call)
  std::vector<std::int64_t> over_;            // per tenant: 1 when above its nominal quota
  std::vector<std::int64_t> over_in_cohort_;  // per cohort: its tenants above their quota
  // Running preemptible jobs per cohort: (start, job).
  // A running preemptible job as a reclaim candidate: (-priority, start, job); the largest key
  // is preempted first, so lowest priority, then most recently started, then larger index.
  using VictimKey = std::tuple<std::int64_t, TimeMs, JobIndex>;
  static VictimKey victim_key(const SchedContext& ctx, JobIndex job, TimeMs start_ms) {
    return {-static_cast<std::int64_t>(ctx.job(job).priority()), start_ms, job};
  }
  std::vector<std::set<VictimKey>> preemptible_running_;
  std::vector<Entry> head_;          // per tenant: its listed head
  std::vector<char> head_listed_;    // per tenant: in heads_
  std::vector<char> within_listed_;  // per tenant: in within_heads_
  std::set<HeadKey> heads_;          // every queued tenant's head
  std::set<HeadKey> within_heads_;   // the heads that may fit their nominal quota
  std::vector<char> dirty_;          // per tenant: usage to re-read at the next call
  std::vector<TenantIndex> dirty_list_;
  std::vector<std::uint64_t> failed_call_;  // per tenant: the call whose pass 1 it failed
  std::uint64_t call_ = 0;
};

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    schedlab::kName,
    "per-tenant queues within nominal quotas, borrowing unused quota of the cohort, reclaim by "
    "preempting borrowers (Kueue)",
    {{"order", "fifo", "order of each tenant's queue: fifo (submit time) or priority",
      "fifo | priority"},
     {"borrowing", "true",
      "true: tenants may borrow unused quota of their cohort; false: hard partitions", "boolean"},
     {"reclaim", "preempt",
      "preempt: a tenant within its quota preempts borrowers to start; none: it waits",
      "preempt | none"}},
    [](const schedlab::PolicyParams& params) -> std::unique_ptr<schedlab::Policy> {
      const std::string order = params.get_string("order", "fifo");
      if (order != "fifo" && order != "priority")
        schedlab::param_error(schedlab::kName, "order", order, "fifo or priority");
      const std::string reclaim = params.get_string("reclaim", "preempt");
      if (reclaim != "preempt" && reclaim != "none")
        schedlab::param_error(schedlab::kName, "reclaim", reclaim, "preempt or none");
      return std::make_unique<schedlab::QuotaPolicy>(
          order == "priority", params.get_bool("borrowing", true), reclaim == "preempt");
    },
    true,
    schedlab::PolicyCardFacts{
        .algorithm =
            "Per-tenant queues (FIFO, or by priority) within nominal GPU quotas; tenants may "
            "borrow "
            "the unused lendable quota of their cohort within their borrowing limits. A head "
            "within "
            "its tenant's quota that does not fit reclaims by preempting borrowers (lowest "
            "priority, "
            "then most recently started); a head that cannot start blocks only its own tenant.",
        .citation =
            "Kubernetes Kueue, \"Cluster Queue: cohorts, borrowing and lending limits, "
            "preemption\" "
            "(kueue.sigs.k8s.io/docs/concepts/cluster_queue/); hard partitions as in Microsoft "
            "Philly's virtual clusters (Jeon et al., USENIX ATC 2019)",
        .inputs_stated = true,
        .needs_priorities = true,
        .preempts = true,
    }})
