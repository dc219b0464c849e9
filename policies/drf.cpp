// drf — Dominant Resource Fairness over GPU types, weighted, with optional preemption.
//
// Algorithm: every GPU type present in the cluster (at least one GPU of it) is a resource. A
// tenant's dominant share is max over types k of busy_gpus(tenant, k) / total GPUs of type k
// (its running jobs' GPUs, from SchedContext::tenant_usage(), the one owner of usage); its
// weighted dominant share is that divided by its weight (Tenant::weight; weight 0: infinite, so
// it is served last). On one GPU type this is weighted max-min fairness. Each tenant's queued
// jobs are in (priority desc, submit, index) order. A pass repeatedly takes the tenant with the
// smallest weighted dominant share (ties: the tenant whose head job was submitted first, then the
// head with the lower trace index; never the tenant's name or index, so renaming or reordering
// tenants changes nothing) and starts its head job, then recomputes
// that tenant's share; a tenant whose head job does not fit is skipped for the rest of the pass
// (other tenants go on). The pass ends when every tenant with queued jobs was skipped or no GPU
// is free.
//
// Preemption (preempt=true). Active tenants are those with queued or running jobs; W is the sum
// of their weights. A tenant's fair share is weight / W: the dominant share it would hold if the
// cluster were divided among the active tenants in proportion to their weights. When a tenant
// below its fair share (dominant share < weight / W) has a head job that does not fit, it may
// preempt running preemptible jobs of tenants above their fair share, most recently started
// first (ties: higher job index first), subject to:
// - a job is never preempted before SchedContext::earliest_useful_preemption_ms (so every
//   attempt keeps at least its restart overhead of work: no livelock);
// - a victim's tenant keeps at least its fair share after all of this preemption's victims are
//   removed (so the victim's tenant is then not below its fair share and never preempts back);
// - it happens only if the head job can then start: victims are added in that order until the
//   placement strategy finds room for the head job in the what-if cluster, then each victim is
//   dropped again, least recently started first, if room remains without it.
// The head job then starts at once; victims return to their queues. A tenant blocked only by
// victims still inside their earliest useful preemption time makes the policy wake itself when
// the first of them becomes eligible. Shares are recomputed after every preemption.
//
// Cost. With preempt=false the tenants with queued jobs stay ordered by (share, tenant) between
// calls and a pass reads them in order, relisting only those whose jobs started, ended or arrived
// (O(log tenants) each); with preempt=true a pass builds a heap over them, O(tenants). Each start
// is O(log queue + log tenants + GPU types). With preempt=false, a call with no GPU free returns at
// once, and a call after which nothing was released (no end, requeue or node change) only
// examines the tenants that received jobs since the last call: every other tenant's head did not
// fit before and still does not. With preempt=true, the preemption candidates (running
// preemptible jobs by start time, most recent first) are kept in a std::set as jobs start and
// stop; a tenant below its fair share whose head does not fit walks them until its job fits.
//
// Parameters: preempt (false).
// Citation: A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant
// Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI 2011 (weighted DRF in
// sec. 4.3 of the paper); preemption of tenants above their fair share as in Hadoop YARN's
// Fair Scheduler.
#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <vector>

#include "schedlab/error.hpp"
#include "schedlab/policy_kit.hpp"

namespace schedlab {
namespace {

constexpr const char* kName = "drf";
constexpr double kInfinite = std::numeric_limits<double>::infinity();

using Entry = PriorityEntry;
using ByPriority = ByPriorityThenSubmit;

class DrfPolicy final : public Policy {
 public:
  explicit DrfPolicy(bool preempt) : preempt_(preempt) {}

  void on_begin(const SchedContext& ctx, const RunSizes& sizes) override {
    const Cluster& cluster = ctx.cluster();
    types_.clear();
    for (GpuTypeIndex type = 0; type < sizes.gpu_types; ++type) {
      const std::int64_t total = cluster.total_gpus_of(type);
      if (total > 0) types_.push_back({type, static_cast<double>(total)});
    }
    queues_.assign(ctx.tenants().size(), {});
    in_pass_.assign(ctx.tenants().size(), 0);
    listed_.clear();
    listed_key_.assign(ctx.tenants().size(), TenantKey{});
    listed_flag_.assign(ctx.tenants().size(), 0);
    stale_flag_.assign(ctx.tenants().size(), 0);
    stale_.clear();
  }

  void on_submit(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }
  void on_finish(const SchedContext& ctx, JobIndex job) override {
    stopped(ctx, job);
    mark_stale(ctx.tenants().of_job(job));
  }
  void on_requeue(const SchedContext& ctx, JobIndex job) override {
    stopped(ctx, job);
    enqueue(ctx, job);
  }

  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    const Cluster& cluster = ctx.cluster();
    if (!preempt_ && !ctx.capacity_left()) return;
    // The tenants to examine.
    pass_.clear();
    if (!preempt_ && !ctx.changes().released()) {
      for (JobIndex job : ctx.changes().arrived) {
        const TenantIndex t = ctx.tenants().of_job(job);
        if (in_pass_[t] == 0 && !queues_[t].empty()) {
          in_pass_[t] = 1;
          pass_.push_back(key_of(ctx, t));
        }
      }
      for (const auto& item : pass_) in_pass_[item.tenant] = 0;
    } else if (preempt_) {
      for (TenantIndex t = 0; t < queues_.size(); ++t)
        if (!queues_[t].empty()) pass_.push_back(key_of(ctx, t));
    }
    // Without preemption a full pass reads every queued tenant's key in order from
    // listed_, which does not change during the pass; pass_ then holds only the tenants pushed
    // again after a start, and the two are merged in order, as one heap of all would be.
    const bool merge_listed = !preempt_ && ctx.changes().released();
    if (merge_listed) relist_stale(ctx);
    auto cursor = merge_listed ? listed_.begin() : listed_.end();
    if (pass_.empty() && cursor == listed_.end()) return;
    std::make_heap(pass_.begin(), pass_.end(), std::greater<>());
    if (preempt_) begin_preemption_pass(ctx);
    TimeMs wake_ms = kNever;
    FailedSizes failed(cluster);
    while (!pass_.empty() || cursor != listed_.end()) {
      if (!preempt_ && !ctx.capacity_left()) break;
      TenantIndex t = 0;
      if (cursor != listed_.end() && (pass_.empty() || *cursor < pass_.front())) {
        t = (cursor++)->tenant;
      } else {
        std::pop_heap(pass_.begin(), pass_.end(), std::greater<>());
        t = pass_.back().tenant;
        pass_.pop_back();
      }
      auto& queue = queues_[t];
      const JobIndex job = queue.begin()->job;
      const JobView view = ctx.job(job);
      bool started = false;
      if (!failed.rules_out(view.gpu_type(), view.gpus()) && ctx.may_start_now(job) &&
          decisions.try_start(job)) {
        started = true;
        note_start(ctx, job);
      } else {
        failed.add(view.gpu_type(), view.gpus());
        if (preempt_ && preempt_for(ctx, decisions, t, job, wake_ms)) {
          started = true;
          failed.clear();  // the victims may free more GPUs than the job takes
          // The victims' tenants' shares fell: re-key the pass.
          for (auto& item : pass_) item.share = share(ctx, item.tenant);
          std::make_heap(pass_.begin(), pass_.end(), std::greater<>());
        }
      }
      if (!started) continue;  // skipped for the rest of this pass
      queue.erase(queue.begin());
      mark_stale(t);
      if (!queue.empty()) {
        pass_.push_back(key_of(ctx, t));
        std::push_heap(pass_.begin(), pass_.end(), std::greater<>());
      }
    }
    if (wake_ms != kNever && wake_ms > ctx.now()) decisions.wake_at(wake_ms);
  }

 private:
  struct TypeTotal {
    GpuTypeIndex type;
    double total;
  };

  void enqueue(const SchedContext& ctx, JobIndex job) {
    const JobView view = ctx.job(job);
    queues_[ctx.tenants().of_job(job)].insert({view.priority(), view.submit_ms(), job});
    mark_stale(ctx.tenants().of_job(job));
  }

  // Without preemption, listed_ holds every tenant with queued jobs by its TenantKey. A tenant's
  // share changes only when its jobs start or end, and its head and membership only when its
  // queue changes: such tenants are marked stale and relisted at the next full pass, with the
  // keys of that moment (what a pass computes for every tenant).
  void mark_stale(TenantIndex t) {
    if (preempt_ || stale_flag_[t] != 0) return;
    stale_flag_[t] = 1;
    stale_.push_back(t);
  }
  void relist_stale(const SchedContext& ctx) {
    for (const TenantIndex t : stale_) {
      stale_flag_[t] = 0;
      if (listed_flag_[t] != 0) listed_.erase(listed_key_[t]);
      listed_flag_[t] = 0;
      if (queues_[t].empty()) continue;
      listed_key_[t] = key_of(ctx, t);
      listed_.insert(listed_key_[t]);
      listed_flag_[t] = 1;
    }
    stale_.clear();
  }

  // Unweighted dominant share, with `removed` GPUs per type taken away (null: none).
  double dominant_share(const SchedContext& ctx, TenantIndex t,
                        const std::int64_t* removed = nullptr) const {
    double out = 0;
    for (std::size_t k = 0; k < types_.size(); ++k) {
      std::int64_t busy = ctx.tenant_usage().busy_gpus(t, types_[k].type);
      if (removed != nullptr) busy -= removed[k];
      out = std::max(out, static_cast<double>(busy) / types_[k].total);
    }
    return out;
  }

  // Weighted dominant share; weight 0 is infinite (served last).
  double share(const SchedContext& ctx, TenantIndex t) const {
    const double weight = ctx.tenants().tenant(t).weight;
    if (!(weight > 0)) return kInfinite;
    return dominant_share(ctx, t) / weight;
  }

  // A queued tenant's place in a pass: its weighted share, then its head job's submit time and
  // trace index (the tie-break); the tenant last (heads are distinct, so it never decides).
  struct TenantKey {
    double share = 0;
    TimeMs head_submit_ms = 0;
    JobIndex head = 0;
    TenantIndex tenant = 0;
    auto operator<=>(const TenantKey&) const = default;
  };
  TenantKey key_of(const SchedContext& ctx, TenantIndex t) const {
    const Entry& head = *queues_[t].begin();
    return {share(ctx, t), ctx.job(head.job).submit_ms(), head.job, t};
  }

  // --- preemption ---

  // The active tenants' weight sum and the candidate list are computed per pass.
  void begin_preemption_pass(const SchedContext& ctx) {
    active_weight_ = 0;
    for (TenantIndex t = 0; t < queues_.size(); ++t)
      if (!queues_[t].empty() || ctx.tenant_usage().busy_gpus(t) > 0)
        active_weight_ += std::max(0.0, ctx.tenants().tenant(t).weight);
  }

  double fair_share(const SchedContext& ctx, TenantIndex t) const {
    const double weight = ctx.tenants().tenant(t).weight;
    return active_weight_ > 0 && weight > 0 ? weight / active_weight_ : 0.0;
  }

  // With preemption: running preemptible jobs, most recently started first (ties: higher index
  // first), kept as jobs start and stop. Whose tenant is above its fair share is checked when
  // they are considered, as shares change.
  void note_start(const SchedContext& ctx, JobIndex job) {
    if (preempt_ && ctx.job(job).preemptible()) candidates_.emplace(ctx.now(), job);
  }
  void stopped(const SchedContext& ctx, JobIndex job) {
    if (preempt_) candidates_.erase({ctx.job(job).last_start_ms(), job});
  }

  // GPUs the running job holds per resource (index into types_).
  void gpus_by_type(const SchedContext& ctx, JobIndex job, std::vector<std::int64_t>& out) const {
    out.assign(types_.size(), 0);
    for (const auto& allocation : ctx.job(job).placement()) {
      const GpuTypeIndex type = ctx.cluster().node(allocation.node).type;
      for (std::size_t k = 0; k < types_.size(); ++k)
        if (types_[k].type == type) out[k] += allocation.gpu_count();
    }
  }

  // Zeroes the rows of removed_ that a preemption search wrote, however it returns.
  struct RemovedReset {
    std::vector<std::int64_t>& removed;
    std::size_t resources;
    std::vector<TenantIndex>& owners;
    ~RemovedReset() {
      for (const TenantIndex owner : owners)
        std::fill_n(removed.begin() + static_cast<std::ptrdiff_t>(owner * resources), resources, 0);
      owners.clear();
    }
  };

  // Preempts for tenant `t`'s head job `job` (which does not fit) if the rules in the header
  // allow it and the job can then start; starts it. Records in `wake_ms` when a protected
  // victim becomes eligible.
  bool preempt_for(const SchedContext& ctx, Decisions& decisions, TenantIndex t, JobIndex job,
                   TimeMs& wake_ms) {
    // Victims are planned in whole GPUs: a job asking for part of a GPU, CPU or memory waits
    // for room instead (docs/gpu-sharing.md).
    if (ctx.job(job).uses_sharing()) return false;
    if (!(dominant_share(ctx, t) < fair_share(ctx, t))) return false;
    if (candidates_.empty()) return false;
    const JobView view = ctx.job(job);
    const GpuTypeIndex type = view.gpu_type();
    const std::size_t resources = types_.size();
    // GPUs removed per (victim tenant, resource) by the victims chosen so far (all 0 between
    // calls: only the owners of the victims considered are reset at the end).
    if (removed_.size() != queues_.size() * resources)
      removed_.assign(queues_.size() * resources, 0);
    const RemovedReset reset_removed{removed_, resources, removed_owners_};
    std::vector<JobIndex> victims;
    std::vector<std::int64_t> held;
    WhatIf& what_if = ctx.what_if();
    bool room = false;
    TimeMs protected_until_ms = kNever;
    for (const auto& candidate : candidates_) {
      const JobIndex victim = candidate.second;
      if (ctx.job(victim).status() != JobStatus::kRunning) continue;
      const TenantIndex owner = ctx.tenants().of_job(victim);
      if (owner == t || !(dominant_share(ctx, owner) > fair_share(ctx, owner))) continue;
      gpus_by_type(ctx, victim, held);
      // Only GPUs the job could use help it.
      bool useful = false;
      for (const auto& allocation : ctx.job(victim).placement())
        useful = useful || Cluster::type_matches(type, ctx.cluster().node(allocation.node).type);
      if (!useful) continue;
      std::int64_t* owner_removed = &removed_[owner * resources];
      removed_owners_.push_back(owner);
      for (std::size_t k = 0; k < resources; ++k) owner_removed[k] += held[k];
      const bool keeps_share = dominant_share(ctx, owner, owner_removed) >= fair_share(ctx, owner);
      if (!keeps_share) {
        for (std::size_t k = 0; k < resources; ++k) owner_removed[k] -= held[k];
        continue;
      }
      const TimeMs eligible_ms = ctx.earliest_useful_preemption_ms(victim);
      if (eligible_ms > ctx.now()) {
        protected_until_ms = std::min(protected_until_ms, eligible_ms);
        for (std::size_t k = 0; k < resources; ++k) owner_removed[k] -= held[k];
        continue;
      }
      what_if.release(victim);
      victims.push_back(victim);
      if (what_if.place(type, view.gpus())) {
        room = true;
        break;
      }
    }
    if (!room) {
      what_if.reset();
      wake_ms = std::min(wake_ms, protected_until_ms);
      return false;
    }
    // Drop victims that are not needed, least recently started (last chosen) first.
    std::vector<char> dropped(victims.size(), 0);
    for (std::size_t i = victims.size(); i-- > 0;) {
      what_if.reset();
      for (std::size_t j = 0; j < victims.size(); ++j)
        if (j != i && dropped[j] == 0) what_if.release(victims[j]);
      if (what_if.place(type, view.gpus())) dropped[i] = 1;
    }
    what_if.reset();
    for (std::size_t i = 0; i < victims.size(); ++i)
      if (dropped[i] == 0) {
        stopped(ctx, victims[i]);
        decisions.preempt(victims[i]);
      }
    const bool ok = decisions.try_start(job);
    SCHEDLAB_ASSERT(ok, "drf: a job starts once its victims are preempted");
    note_start(ctx, job);
    return true;
  }

  bool preempt_;
  std::vector<TypeTotal> types_;
  std::vector<std::set<Entry, ByPriority>> queues_;
  std::vector<TenantKey> pass_;  // min-heap by TenantKey
  std::vector<char> in_pass_;
  std::set<TenantKey> listed_;         // without preemption: see relist_stale
  std::vector<TenantKey> listed_key_;  // per tenant: its key in listed_
  std::vector<char> listed_flag_;
  std::vector<TenantIndex> stale_;  // tenants to relist at the next full pass
  std::vector<char> stale_flag_;
  double active_weight_ = 0;
  std::set<std::pair<TimeMs, JobIndex>, std::greater<>> candidates_;
  std::vector<std::int64_t> removed_;
  std::vector<TenantIndex> removed_owners_;  // rows of removed_ written by this search
};

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    schedlab::kName,
    "Dominant Resource Fairness over GPU types: the tenant with the smallest weighted dominant "
    "share goes next; optional preemption for tenants below their fair share",
    {{"preempt", "false",
      "true: a tenant below its fair share may preempt the most recently started jobs of "
      "tenants above theirs",
      "boolean"}},
    [](const schedlab::PolicyParams& params) -> std::unique_ptr<schedlab::Policy> {
      return std::make_unique<schedlab::DrfPolicy>(params.get_bool("preempt", false));
    },
    true,
    schedlab::PolicyCardFacts{
        .algorithm =
            "Dominant Resource Fairness over GPU types: a pass repeatedly starts the head job (by "
            "priority, then submit time) of the tenant with the smallest weighted dominant share; "
            "a "
            "tenant whose head does not fit is skipped for the pass. With preempt=true a tenant "
            "below "
            "its fair share may preempt the most recently started jobs of tenants above theirs.",
        .citation =
            "A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, \"Dominant "
            "Resource Fairness: Fair Allocation of Multiple Resource Types\", NSDI 2011; "
            "preemption "
            "as in Hadoop YARN's Fair Scheduler",
        .inputs_stated = true,
        .needs_priorities = true,
        .preempts_optionally = true,
    }})
