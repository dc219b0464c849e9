// fair-share — Slurm's classic fair-share factor per tenant, F = 2^(-U/S), with decayed usage.
//
// Algorithm: every tenant i has a fair-share factor F_i = 2^(-U_i / S_i), where
// - S_i = weight_i / sum of all weights (Tenant::entitled_share); S_i = 0 gives F_i = 0;
// - U_i = D_i / sum_j D_j over all tenants (0 when that sum is 0), and D_i is the tenant's
//   usage with exponential decay of half-life h:
//       D_i(t) = integral over s <= t of busy_gpus_i(s) * 2^(-(t - s) / h) ds   (GPU-ms).
// Queued jobs are ordered by score (larger first), then job priority (larger first), then submit
// time, then trace order, where score = F_i + age_weight * min(1, (now - submit) / max_age)
// (score = F_i with age_weight = 0). With blocking=true the first job in that order that does
// not fit blocks every later one; with blocking=false (the default) later jobs that fit start.
// Non-preemptive.
//
// Exact decay. busy_gpus_i is piecewise constant: it changes only when a job of i starts or
// ends an attempt (finish, walltime kill, preemption, node failure). The policy brings D_i up to
// date ("refreshes" it) at every instant at which i's usage changes — in on_finish and
// on_requeue, which the engine calls as each change is applied, and after each of its own
// starts — and at every schedule() call that orders jobs. Between two refreshes t_a < t_b the
// rate r is therefore constant, and TenantUsage::used_gpu_ms (the exact integer integral since
// the run began) gives it exactly: r = (used(t_b) - used(t_a)) / (t_b - t_a). Several changes
// at one instant do not matter: they add nothing to the integral up to that instant. Then
//       D(t_b) = D(t_a) * f + r * (h / ln 2) * (1 - f),   f = 2^(-(t_b - t_a) / h),
// which is the integral above in closed form: nothing is sampled. To spend no work on tenants
// whose usage did not change, D_i is stored scaled: E_i = D_i * g(t) with g(t) = 2^((t - t0)/h)
// for a reference time t0 shared by all tenants. An idle tenant's E_i stays constant, a busy one
// gains r * (h / ln 2) * (g(t_b) - g(t_a)) (within one half-life computed as
// g(t_a) * expm1((t_b - t_a) ln 2 / h), to full relative precision however long the half-life
// is against the step), and U_i =
// E_i / sum_j E_j because the common factor g(t) cancels. When (t - t0) / h exceeds 64, every
// E_i and stored g is multiplied by 2^(-(t - t0)/h) and t0 moves to t: values stay below 2^64
// times the largest possible D (no overflow over runs of years), and usage that has decayed by
// more than 2^-1074 becomes exactly 0 (underflow is the true limit, never a NaN).
// Since F is strictly decreasing in U/S, with age_weight = 0 tenants are compared by
// E_i / S_i (smaller first; S_i = 0 last), which is the order of F computed without rounding
// through 2^x; with age_weight > 0 the score is computed as defined.
//
// Data structures and cost. All of one tenant's jobs share F, so a tenant's order is fixed —
// (priority desc, submit, index) — and schedule() merges the tenants' queues with a binary heap
// over their heads, keyed (score desc, priority desc, submit, index). Each tenant's queue is
// split by job class (GPU type, GPU count) into std::sets, with a std::set of the classes' head
// jobs in the tenant's order: within one pass free GPUs only shrink, so once a class's head
// did not fit (or a job of the same type needing no more GPUs did not: FailedSizes), no job
// of that class can start, and the walk drops the whole class instead of passing over its
// jobs one by one. With age_weight > 0 a job's score also grows with its age until it is capped
// at max_age, so each class keeps two sets: jobs whose age term is capped, in (priority desc,
// submit, index) order, and after them younger jobs in (submit, priority desc, index) order (older
// first = larger score); jobs move from the second to the first as they reach max_age, each once
// (found through one set of all young jobs by submit time), so the order stays exact at O(log
// queue) per job with no re-sorting. A schedule() call that orders costs O((started jobs + dropped
// classes) × (log tenants + classes of a tenant)) plus, without aging, O(log tenants) per tenant
// busy since its last refresh: the tenants with queued jobs stay ordered by their first key
// between calls (their score changes only when their usage does), so a pass reads them in order
// and merges them with the heads it pushes again; with aging every score changes with time and a
// pass costs O(tenants) more. It stops as soon as no GPU is free.
// With blocking=false and nothing released since the last call (no end, requeue or node change),
// jobs that did not fit still do not, so only newly arrived jobs are tried, in order, refreshing
// only their tenants (all tenants with aging, whose score needs sum_j E_j). A call with no GPU free
// returns at once.
//
// Parameters: half_life (seconds, 604800 = 7 days; > 0), age_weight (0; >= 0), max_age
// (seconds, 604800), blocking (false).
// Citation: the classic fair-share factor of Slurm's multifactor priority plugin,
// F = 2^(-U/S) with usage decayed by PriorityDecayHalfLife
// (slurm.schedmd.com/priority_multifactor.html); M. A. Jette, A. B. Yoo, M. Grondona, "SLURM:
// Simple Linux Utility for Resource Management", JSSPP 2003, LNCS 2862.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <vector>

#include "schedlab/error.hpp"
#include "schedlab/policy_kit.hpp"

namespace schedlab {
namespace {

constexpr const char* kName = "fair-share";
// Rescale the stored usage when the shared factor g exceeds 2^kRescaleHalfLives.
constexpr double kRescaleHalfLives = 64.0;

using Entry = PriorityEntry;
using ByPriority = ByPriorityThenSubmit;

// (submit, priority desc, index): younger jobs with aging, older (larger score) first.
struct BySubmit {
  bool operator()(const Entry& a, const Entry& b) const {
    if (a.submit_ms != b.submit_ms) return a.submit_ms < b.submit_ms;
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.job < b.job;
  }
};

// A job's place in the merged order.
struct Key {
  double score;
  std::int64_t priority;
  TimeMs submit_ms;
  JobIndex job;
};

// Whether `a` comes before `b`: larger score, larger priority, earlier submit, lower index.
bool before(const Key& a, const Key& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.submit_ms != b.submit_ms) return a.submit_ms < b.submit_ms;
  return a.job < b.job;
}

class FairSharePolicy final : public Policy {
 public:
  FairSharePolicy(TimeMs half_life_ms, double age_weight, TimeMs max_age_ms, bool blocking)
      : half_life_ms_(static_cast<double>(half_life_ms)),
        mean_life_ms_(static_cast<double>(half_life_ms) / std::numbers::ln2),
        age_weight_(age_weight),
        max_age_ms_(max_age_ms),
        blocking_(blocking) {}

  void on_begin(const SchedContext& ctx, const RunSizes& sizes) override {
    const std::size_t n = ctx.tenants().size();
    queues_.clear();
    queues_.resize(n);
    class_of_job_.assign(sizes.jobs, 0);
    young_.clear();
    decay_.assign(n, Decay{});
    scores_.assign(n, 0.0);
    for (auto& d : decay_) d.last_ms = ctx.now();
    t0_ms_ = ctx.now();
    g_time_ms_ = ctx.now();
    g_now_ = 1.0;
    listed_.clear();
    listed_key_.assign(n, Key{});
    listed_flag_.assign(n, 0);
    touched_flag_.assign(n, 0);
    touched_.clear();
    active_flag_.assign(n, 0);
    active_.clear();
    rekey_all_ = false;
  }

  void on_submit(const SchedContext& ctx, JobIndex job) override { enqueue(ctx, job); }

  void on_finish(const SchedContext& ctx, JobIndex job) override {
    refresh(ctx, ctx.tenants().of_job(job));
  }

  void on_requeue(const SchedContext& ctx, JobIndex job) override {
    refresh(ctx, ctx.tenants().of_job(job));
    enqueue(ctx, job);
  }

  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    if (!ctx.capacity_left()) return;
    if (!blocking_ && !ctx.changes().released()) {
      schedule_arrivals(ctx, decisions);
      relist_touched(ctx);
      return;
    }
    if (aging()) {
      prepare_all(ctx);
    } else {
      prepare_listed(ctx);
    }
    ++pass_;
    heap_.clear();
    FailedSizes failed(ctx.cluster());
    // Every tenant's first head, in order: with aging pushed onto the heap; without, read in
    // order from listed_ (which holds exactly those keys and does not change during the pass),
    // while the heap holds only the heads pushed again after a tenant's turn.
    auto cursor = listed_.begin();
    if (aging()) {
      for (TenantIndex t = 0; t < queues_.size(); ++t) push_head(ctx, t, failed, false);
      std::make_heap(heap_.begin(), heap_.end(), heap_after);
      cursor = listed_.end();
    }
    while (ctx.capacity_left()) {
      HeapItem item;
      if (cursor != listed_.end() &&
          (heap_.empty() || before(cursor->first, heap_.front().first))) {
        item = *cursor++;
      } else if (!heap_.empty()) {
        std::pop_heap(heap_.begin(), heap_.end(), heap_after);
        item = heap_.back();
        heap_.pop_back();
      } else {
        break;
      }
      const auto [key, tenant] = item;
      ClassQueue& c = queues_[tenant].classes[class_of_job_[key.job]];
      if (try_start(ctx, decisions, key.job)) {
        erase(ctx, key.job);
      } else {
        if (blocking_) break;
        // Every later job of this class (same GPU type and count) fails too in this pass.
        failed.add(c.type, c.gpus);
        c.dropped_pass = pass_;
      }
      push_head(ctx, tenant, failed, true);
    }
    relist_touched(ctx);
  }

 private:
  // One tenant's queued jobs of one GPU type and GPU count.
  struct ClassQueue {
    GpuTypeIndex type = kAnyGpuType;
    int gpus = 0;
    std::set<Entry, ByPriority> aged;  // age term capped (every job without aging)
    std::set<Entry, BySubmit> young;   // with aging: younger than max_age
    std::uint64_t dropped_pass = 0;    // the pass in which its head did not fit
  };
  // A class's first job in the tenant's order: aged jobs first (priority desc, submit, index),
  // then young ones (submit, priority desc, index).
  struct Head {
    bool young;
    Entry entry;
    std::uint32_t cls;
  };
  struct HeadOrder {
    bool operator()(const Head& a, const Head& b) const {
      if (a.young != b.young) return !a.young;
      return a.young ? BySubmit{}(a.entry, b.entry) : ByPriority{}(a.entry, b.entry);
    }
  };
  struct TenantQueue {
    std::vector<ClassQueue> classes;
    std::map<std::pair<GpuTypeIndex, int>, std::uint32_t> class_index;
    std::set<Head, HeadOrder> heads;  // the head of every non-empty class, in the tenant's order
  };

  // A tenant's decayed usage, scaled: D = scaled / g(now).
  struct Decay {
    double scaled = 0;
    double g_last = 1;             // g at the last refresh
    std::int64_t used_gpu_ms = 0;  // TenantUsage::used_gpu_ms at the last refresh
    TimeMs last_ms = 0;            // time of the last refresh
  };

  using HeapItem = std::pair<Key, TenantIndex>;
  // std heap order: the top is the item that comes first.
  static bool heap_after(const HeapItem& a, const HeapItem& b) { return before(b.first, a.first); }
  struct ItemOrder {
    bool operator()(const HeapItem& a, const HeapItem& b) const { return before(a.first, b.first); }
  };

  bool aging() const { return age_weight_ > 0; }

  Entry entry_of(const SchedContext& ctx, JobIndex job) const {
    const JobView view = ctx.job(job);
    return {view.priority(), view.submit_ms(), job};
  }

  bool is_young(TimeMs now_ms, TimeMs submit_ms) const {
    return aging() && now_ms - submit_ms < max_age_ms_;
  }

  static std::optional<Head> head_of(const ClassQueue& c, std::uint32_t cls) {
    if (!c.aged.empty()) return Head{false, *c.aged.begin(), cls};
    if (!c.young.empty()) return Head{true, *c.young.begin(), cls};
    return std::nullopt;
  }

  // Applies `change` to the job's class, keeping the tenant's set of class heads up to date.
  template <typename Change>
  void change_class(TenantQueue& q, std::uint32_t cls, Change change) {
    ClassQueue& c = q.classes[cls];
    const auto before_head = head_of(c, cls);
    change(c);
    const auto after_head = head_of(c, cls);
    if (before_head && after_head && before_head->entry.job == after_head->entry.job &&
        before_head->young == after_head->young)
      return;
    if (before_head) q.heads.erase(*before_head);
    if (after_head) q.heads.insert(*after_head);
  }

  void enqueue(const SchedContext& ctx, JobIndex job) {
    const JobView view = ctx.job(job);
    TenantQueue& q = queues_[ctx.tenants().of_job(job)];
    const auto [it, added] = q.class_index.try_emplace(
        {view.gpu_type(), view.gpus()}, static_cast<std::uint32_t>(q.classes.size()));
    if (added) {
      q.classes.emplace_back();
      q.classes.back().type = view.gpu_type();
      q.classes.back().gpus = view.gpus();
    }
    class_of_job_[job] = it->second;
    const Entry e = entry_of(ctx, job);
    const bool young = is_young(ctx.now(), e.submit_ms);
    if (young) young_.emplace(e.submit_ms, job);
    change_class(q, it->second, [&](ClassQueue& c) {
      if (young)
        c.young.insert(e);
      else
        c.aged.insert(e);
    });
    relist(ctx, ctx.tenants().of_job(job));
  }

  void erase(const SchedContext& ctx, JobIndex job) {
    TenantQueue& q = queues_[ctx.tenants().of_job(job)];
    const Entry e = entry_of(ctx, job);
    change_class(q, class_of_job_[job], [&](ClassQueue& c) {
      if (c.aged.erase(e) == 0 && c.young.erase(e) != 0) young_.erase({e.submit_ms, job});
    });
    // listed_ is read during a pass: its tenants are relisted when the call ends.
    const TenantIndex t = ctx.tenants().of_job(job);
    if (!aging() && touched_flag_[t] == 0) {
      touched_flag_[t] = 1;
      touched_.push_back(t);
    }
  }

  // Without aging, listed_ holds each tenant with queued jobs keyed by the first of its class
  // heads and its score -E/S from its stored usage: what a pass would push for it first. A
  // tenant's key changes only when its queue changes or its usage is refreshed with a change
  // (busy tenants, active_) or rescaled (every tenant, rekey_all_).
  void relist(const SchedContext& ctx, TenantIndex t) {
    if (aging()) return;
    if (listed_flag_[t] != 0) listed_.erase({listed_key_[t], t});
    listed_flag_[t] = 0;
    const TenantQueue& q = queues_[t];
    if (q.heads.empty()) return;
    scores_[t] = tenant_score(ctx, t, 0.0);
    const Head& head = *q.heads.begin();
    listed_key_[t] = key_of(ctx, t, head.entry, !head.young);
    listed_.emplace(listed_key_[t], t);
    listed_flag_[t] = 1;
  }
  void relist_touched(const SchedContext& ctx) {
    for (const TenantIndex t : touched_) {
      touched_flag_[t] = 0;
      relist(ctx, t);
    }
    touched_.clear();
  }
  void note_started(TenantIndex t) {
    if (aging() || active_flag_[t] != 0) return;
    active_flag_[t] = 1;
    active_.push_back(t);
  }

  // What prepare_all does without aging, at a cost in the busy tenants only: the tenants whose
  // refresh would change their usage (busy since their last refresh) are refreshed and
  // relisted; refreshing any other tenant would change nothing but its refresh time, which no
  // later refresh reads (its usage is unchanged until its next start, which refreshes it), and
  // its score is that of its stored usage, as listed. g(now) is taken as the first refresh
  // would take it, so rescales happen at the same instants.
  void prepare_listed(const SchedContext& ctx) {
    if (!listed_.empty()) g_at(ctx.now());
    std::size_t kept = 0;
    for (const TenantIndex t : active_) {
      if (!queues_[t].heads.empty()) {
        refresh(ctx, t);
        relist(ctx, t);
      }
      if (ctx.tenant_usage().busy_gpus(t) > 0) {
        active_[kept++] = t;
      } else {
        active_flag_[t] = 0;
      }
    }
    active_.resize(kept);
    if (rekey_all_) {
      rekey_all_ = false;
      std::vector<TenantIndex> listed;
      listed.reserve(listed_.size());
      for (const auto& item : listed_) listed.push_back(item.second);
      for (const TenantIndex t : listed) relist(ctx, t);
    }
  }

  // g(now) = 2^((now - t0) / h), rescaling every tenant's stored usage when it grows too large.
  double g_at(TimeMs now_ms) {
    if (now_ms == g_time_ms_) return g_now_;
    double x = static_cast<double>(now_ms - t0_ms_) / half_life_ms_;
    if (x > kRescaleHalfLives) {
      const double factor = std::exp2(-x);  // 0 once everything stored has decayed away
      for (auto& d : decay_) {
        d.scaled *= factor;
        d.g_last *= factor;
      }
      rekey_all_ = true;  // every listed score changed
      t0_ms_ = now_ms;
      x = 0;
    }
    g_time_ms_ = now_ms;
    g_now_ = std::exp2(x);
    return g_now_;
  }

  // Brings the tenant's decayed usage up to now (see the header: exact for a constant rate since
  // the last refresh, which holds because every change of the tenant's usage refreshes it).
  void refresh(const SchedContext& ctx, TenantIndex tenant) {
    Decay& d = decay_[tenant];
    const TimeMs now_ms = ctx.now();
    if (now_ms == d.last_ms) return;
    const double g = g_at(now_ms);
    const std::int64_t used = ctx.tenant_usage().used_gpu_ms(tenant, now_ms);
    if (used > d.used_gpu_ms) {
      const double elapsed_ms = static_cast<double>(now_ms - d.last_ms);
      const double rate = static_cast<double>(used - d.used_gpu_ms) / elapsed_ms;
      // g(now) - g(last); within one half-life as g(last) * (2^(elapsed / h) - 1), which does
      // not cancel (there g(last) >= g(now) / 2 >= 1/2, so it never underflows either).
      const double half_lives = elapsed_ms / half_life_ms_;
      const double growth =
          half_lives <= 1.0 ? d.g_last * std::expm1(half_lives * std::numbers::ln2) : g - d.g_last;
      d.scaled += rate * mean_life_ms_ * growth;
    }
    d.used_gpu_ms = used;
    d.g_last = g;
    d.last_ms = now_ms;
  }

  // The tenant's part of the score, after a refresh. Without aging: -E/S (larger first, the
  // order of F); with aging: F itself (needs sum_e, the sum of every tenant's scaled usage).
  double tenant_score(const SchedContext& ctx, TenantIndex tenant, double sum_e) const {
    const double share = ctx.tenants().tenant(tenant).entitled_share;
    const double e = decay_[tenant].scaled;
    if (!aging()) return share > 0 ? -(e / share) : -std::numeric_limits<double>::infinity();
    if (!(share > 0)) return 0.0;
    const double usage = sum_e > 0 ? e / sum_e : 0.0;
    return std::exp2(-usage / share);
  }

  // Refreshes every tenant, computes every tenant's score and moves jobs whose age term reached
  // its cap into their tenant's aged set.
  void prepare_all(const SchedContext& ctx) {
    double sum_e = 0;
    if (aging()) {  // F needs every tenant's usage
      for (TenantIndex t = 0; t < decay_.size(); ++t) {
        refresh(ctx, t);
        sum_e += decay_[t].scaled;
      }
    }
    for (TenantIndex t = 0; t < decay_.size(); ++t) {
      if (queues_[t].heads.empty()) continue;  // no score needed
      refresh(ctx, t);
      scores_[t] = tenant_score(ctx, t, sum_e);
    }
    if (!aging()) return;
    const TimeMs now_ms = ctx.now();
    while (!young_.empty() && !is_young(now_ms, young_.begin()->first)) {
      const JobIndex job = young_.begin()->second;
      young_.erase(young_.begin());
      const Entry e = entry_of(ctx, job);
      change_class(queues_[ctx.tenants().of_job(job)], class_of_job_[job], [&](ClassQueue& c) {
        c.young.erase(e);
        c.aged.insert(e);
      });
    }
  }

  Key key_of(const SchedContext& ctx, TenantIndex tenant, const Entry& e, bool aged) const {
    double score = scores_[tenant];
    if (aging()) {
      const double age = aged || max_age_ms_ == 0
                             ? 1.0
                             : std::min(1.0, static_cast<double>(ctx.now() - e.submit_ms) /
                                                 static_cast<double>(max_age_ms_));
      score += age_weight_ * age;
    }
    return {score, e.priority, e.submit_ms, e.job};
  }

  // Pushes the tenant's first job that may still start in this pass onto the heap, if any: the
  // head of its first class that neither failed in this pass nor is ruled out by a failed
  // size (with blocking, simply its first job). `keep_heap` false: only appends it, for a
  // make_heap after all tenants.
  void push_head(const SchedContext& ctx, TenantIndex tenant, const FailedSizes& failed,
                 bool keep_heap) {
    TenantQueue& q = queues_[tenant];
    for (const Head& head : q.heads) {
      ClassQueue& c = q.classes[head.cls];
      if (!blocking_) {
        if (c.dropped_pass == pass_) continue;
        if (failed.rules_out(c.type, c.gpus)) {
          c.dropped_pass = pass_;
          continue;
        }
      }
      heap_.emplace_back(key_of(ctx, tenant, head.entry, !head.young), tenant);
      if (keep_heap) std::push_heap(heap_.begin(), heap_.end(), heap_after);
      return;
    }
  }

  // Starts the job if it fits now; refreshes its tenant (a no-op after prepare_all).
  bool try_start(const SchedContext& ctx, Decisions& decisions, JobIndex job) {
    if (!ctx.may_start_now(job)) return false;
    if (!decisions.try_start(job)) return false;
    refresh(ctx, ctx.tenants().of_job(job));
    note_started(ctx.tenants().of_job(job));
    return true;
  }

  // Nothing was released since the last call: only jobs queued since then can start. They are
  // tried in the policy's order among themselves.
  void schedule_arrivals(const SchedContext& ctx, Decisions& decisions) {
    const auto& arrived = ctx.changes().arrived;
    if (arrived.empty()) return;
    if (aging()) {
      prepare_all(ctx);
    } else {
      for (JobIndex job : arrived) {
        const TenantIndex t = ctx.tenants().of_job(job);
        refresh(ctx, t);
        scores_[t] = tenant_score(ctx, t, 0.0);
      }
    }
    fresh_.clear();
    for (JobIndex job : arrived) {
      if (ctx.job(job).status() != JobStatus::kQueued) continue;
      const Entry e = entry_of(ctx, job);
      fresh_.push_back(
          key_of(ctx, ctx.tenants().of_job(job), e, !is_young(ctx.now(), e.submit_ms)));
    }
    std::sort(fresh_.begin(), fresh_.end(), before);
    for (const Key& key : fresh_) {
      if (!ctx.capacity_left()) break;
      if (try_start(ctx, decisions, key.job)) erase(ctx, key.job);
    }
  }

  double half_life_ms_;
  double mean_life_ms_;  // h / ln 2
  double age_weight_;
  TimeMs max_age_ms_;
  bool blocking_;

  std::vector<TenantQueue> queues_;
  std::vector<std::uint32_t> class_of_job_;      // index into its tenant's classes
  std::set<std::pair<TimeMs, JobIndex>> young_;  // with aging: young jobs by submit time
  std::uint64_t pass_ = 0;                       // full walks so far
  std::vector<Decay> decay_;
  std::vector<double> scores_;
  TimeMs t0_ms_ = 0;
  TimeMs g_time_ms_ = 0;
  double g_now_ = 1.0;
  std::vector<HeapItem> heap_;
  std::vector<Key> fresh_;
  // Without aging: every tenant with queued jobs by the key a pass pushes for it first.
  std::set<HeapItem, ItemOrder> listed_;
  std::vector<Key> listed_key_;       // per tenant: its key in listed_
  std::vector<char> listed_flag_;     // per tenant: in listed_
  std::vector<TenantIndex> touched_;  // tenants whose queue changed during this call
  std::vector<char> touched_flag_;
  std::vector<TenantIndex> active_;  // tenants that started a job and may still be busy
  std::vector<char> active_flag_;
  bool rekey_all_ = false;  // a rescale changed every stored usage
};

}  // namespace
}  // namespace schedlab

SCHEDLAB_REGISTER_POLICY(schedlab::PolicyInfo{
    schedlab::kName,
    "Slurm's classic fair-share factor 2^(-U/S) per tenant, usage decayed exactly by a "
    "half-life; then priority, submit",
    {{"half_life", "604800", "seconds after which a tenant's past usage counts half (> 0)", "s"},
     {"age_weight", "0", "weight of the age factor min(1, waited / max_age) added to F (>= 0)",
      "number"},
     {"max_age", "604800", "seconds of waiting at which the age factor reaches 1", "s"},
     {"blocking", "false",
      "true: the first job that does not fit blocks later ones; false: later jobs may start",
      "boolean"}},
    [](const schedlab::PolicyParams& params) -> std::unique_ptr<schedlab::Policy> {
      const schedlab::TimeMs half_life_ms =
          schedlab::param_seconds_ms(params, schedlab::kName, "half_life", 604'800'000);
      if (half_life_ms <= 0)
        schedlab::param_error(schedlab::kName, "half_life", params.values().at("half_life"),
                              "seconds > 0");
      const double age_weight = params.get_double("age_weight", 0.0);
      if (!std::isfinite(age_weight) || age_weight < 0)
        schedlab::param_error(schedlab::kName, "age_weight", params.values().at("age_weight"),
                              "a number >= 0");
      const schedlab::TimeMs max_age_ms =
          schedlab::param_seconds_ms(params, schedlab::kName, "max_age", 604'800'000);
      return std::make_unique<schedlab::FairSharePolicy>(half_life_ms, age_weight, max_age_ms,
                                                         params.get_bool("blocking", false));
    },
    true,
    schedlab::PolicyCardFacts{
        .algorithm =
            "Each tenant's fair-share factor F = 2^(-U/S): S its share of the weights, U its share "
            "of the usage decayed exactly with half-life half_life. Queued jobs in order of F "
            "(plus "
            "age_weight times an age factor), then priority, then submit time, then trace order; a "
            "job that does not fit is skipped (blocking=true: it blocks). Non-preemptive.",
        .citation =
            "the classic fair-share factor of Slurm's multifactor priority plugin "
            "(slurm.schedmd.com/priority_multifactor.html); M. A. Jette, A. B. Yoo, M. Grondona, "
            "\"SLURM: Simple Linux Utility for Resource Management\", JSSPP 2003, LNCS 2862",
        .inputs_stated = true,
        .needs_priorities = true,
    }})
