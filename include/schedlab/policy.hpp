// The policy framework: what a scheduling policy sees (SchedContext), what it may ask for
// (Decisions), and how it registers itself by name.
//
// Contract ("the policy proposes, the engine disposes"):
// - on_begin runs once, before the first event, with the sizes of the run. Hooks on_submit /
//   on_finish / on_requeue report each change as it is applied; schedule() runs once per
//   instant where something changed and a job is queued, after every event of that instant.
//   SchedContext::changes() lists what changed since the previous schedule() call, so a policy
//   need not collect it itself.
// - A policy sees jobs through JobView: what a real scheduler knows (request, walltime, history
//   of its attempts), never the true duration or the work left. Progress questions (work done,
//   what a preemption would save or cost, when it would first save work) are answered by the
//   engine, which alone owns progress.
// - A policy never mutates cluster or job state. Decisions validates each request against the
//   current free GPUs and applies it; an illegal request throws PolicyError naming the policy,
//   the job and the reason. Planning ("what if these jobs had ended") goes through WhatIf, a
//   scratch copy of the cluster that the framework keeps equal to the engine's and resets after
//   every schedule() call.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/error.hpp"
#include "schedlab/job.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/queue_view.hpp"
#include "schedlab/registry.hpp"
#include "schedlab/tenant_usage.hpp"
#include "schedlab/tenants.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

struct RunOptions;
class SchedContext;

// A job as a policy may know it: its request and the history of its attempts. It has no true
// duration and no remaining work: those are the simulator's secret (SchedContext answers
// progress questions instead).
class JobView {
 public:
  JobView(const JobSpec& spec, const JobState& state, GpuTypeIndex gpu_type,
          bool sharing_run = false)
      : spec_(&spec), state_(&state), gpu_type_(gpu_type), sharing_run_(sharing_run) {}

  const std::string& id() const { return spec_->id; }
  TimeMs submit_ms() const { return spec_->submit_ms; }
  int gpus() const { return spec_->gpus; }
  // GPU sharing requests (docs/gpu-sharing.md): a fraction of one GPU in milli (0 = whole GPUs),
  // CPU milli and memory MiB (0 = none).
  int gpu_milli() const { return spec_->gpu_milli; }
  std::int64_t cpu_milli() const { return spec_->cpu_milli; }
  std::int64_t memory_mib() const { return spec_->memory_mib; }
  // Whether the run shares GPUs (--gpu-sharing) and the job asks for any of the three, a MIG
  // profile or several GPU types: then find_placement places it with the shared placement, on
  // one node, and only such a placement may start it. Always false without --gpu-sharing.
  bool uses_sharing() const { return sharing_run_ && spec_->uses_sharing(); }
  // Whether the run shares GPUs and the job holds part of one (a fraction or a MIG slice): its
  // GPU frees only when every job on it ends.
  bool shares_a_gpu() const { return sharing_run_ && spec_->shares_a_gpu(); }
  // The limit policies plan with: the trace's walltime, else the --estimate rule (> 0).
  TimeMs walltime_ms() const { return state_->walltime_ms; }
  std::int64_t priority() const { return spec_->priority; }
  StringId user() const { return spec_->user; }
  StringId tenant() const { return spec_->tenant; }
  // The GPU type the job is constrained to, or kAnyGpuType.
  GpuTypeIndex gpu_type() const { return gpu_type_; }
  bool preemptible() const { return spec_->preemptible; }
  CommSensitivity comm() const { return spec_->comm; }

  JobStatus status() const { return state_->status; }
  std::uint32_t attempt() const { return state_->attempt; }
  TimeMs first_start_ms() const { return state_->first_start_ms; }
  // Start of the current (running) or last attempt.
  TimeMs last_start_ms() const { return state_->last_start_ms; }
  TimeMs queued_since_ms() const { return state_->queued_since_ms; }
  // Time it held GPUs over its finished attempts (the running one not included).
  TimeMs held_ms() const { return state_->run_ms; }
  std::uint32_t restarts() const { return state_->restarts; }
  std::uint32_t preemptions() const { return state_->preemptions; }
  TimeMs checkpoint_interval_ms() const { return state_->checkpoint_interval_ms; }
  TimeMs restart_overhead_ms() const { return state_->restart_overhead_ms; }
  // Current (running) or last placement.
  const Placement& placement() const { return state_->placement; }
  // When the current attempt ends at the latest, from its walltime: last start + walltime.
  TimeMs walltime_end_ms() const {
    return saturating_add(state_->last_start_ms, state_->walltime_ms);
  }

 private:
  const JobSpec* spec_;
  const JobState* state_;
  GpuTypeIndex gpu_type_;
  bool sharing_run_;
};

// Running jobs by walltime-based end (last start + walltime), then job index.
using RunningByEnd = std::set<std::pair<TimeMs, JobIndex>>;

// What changed since the previous schedule() call (or since the run began, for the first).
struct Changes {
  std::vector<JobIndex> arrived;   // submitted, in the order applied
  std::vector<JobIndex> requeued;  // back in the queue after a preemption or a node failure
  std::vector<JobIndex> ended;     // left the running set for good (completed or killed)
  // Jobs in `ended` that ended before their walltime-based end (last start + walltime), and
  // requeued jobs that were interrupted while running: capacity came back earlier than planned.
  bool ended_early = false;
  bool nodes_changed = false;  // a node changed state (failure, repair, power off, boot)
  // GPUs were released (an end or a requeue) or nodes changed: a job that did not fit before
  // may fit now.
  bool released() const { return !ended.empty() || !requeued.empty() || nodes_changed; }
  // Empties every list, keeping their storage.
  void clear() {
    arrived.clear();
    requeued.clear();
    ended.clear();
    ended_early = false;
    nodes_changed = false;
  }
  // Appends the jobs that joined the queue (arrived or requeued) to `out`, sorted among
  // themselves by (submit time, job). `out` is the caller's, so its storage is reused.
  void fresh_entries(const SchedContext& ctx, std::vector<QueueEntry>& out) const;
};

// A scratch copy of the cluster for planning. Equal to the engine's cluster at the start of
// every schedule() call and after reset(); tentative changes never touch the real state, and
// real starts and preemptions made during the call are reflected in it at once (a real start
// on GPUs held tentatively takes them over). reset() runs after every schedule() call.
class WhatIf {
 public:
  virtual ~WhatIf() = default;
  virtual const Cluster& cluster() const = 0;
  // Tentatively ends the running job: its GPUs are free here.
  virtual void release(JobIndex running_job) = 0;
  // Tentatively occupies free GPUs (e.g. a reservation's).
  virtual void hold(const Placement& free_gpus) = 0;
  // Where the run's placement strategy would put `gpus` GPUs of `type` here, or nullopt.
  virtual std::optional<Placement> place(GpuTypeIndex type, int gpus) const = 0;
  // Undoes every tentative change.
  virtual void reset() = 0;
};

// Sizes of the run, given once to Policy::on_begin so policies can size their arrays.
struct RunSizes {
  std::size_t jobs = 0;
  std::size_t nodes = 0;
  std::int64_t gpus = 0;
  std::size_t gpu_types = 0;
};

// Read-only view of the simulation for policies.
class SchedContext {
 public:
  virtual ~SchedContext() = default;
  virtual TimeMs now() const = 0;
  virtual const Cluster& cluster() const = 0;
  // The job as a policy may know it. Not virtual: policies ask it for every job they look at.
  JobView job(JobIndex job) const {
    SCHEDLAB_ASSERT(job < job_specs_.size(), "policies ask about jobs of the trace");
    const GpuTypeIndex type = job_types_[job];
    return JobView(job_specs_[job], job_states_[job], type == kUnknownGpuType ? kAnyGpuType : type,
                   sharing_run_);
  }
  virtual const RunOptions& options() const = 0;
  // Interned strings of the trace (users, tenants, GPU type names).
  virtual const StringPool& strings() const = 0;
  virtual std::size_t job_count() const = 0;
  // Running jobs; order is deterministic but unspecified.
  virtual const std::vector<JobIndex>& running() const = 0;
  virtual std::size_t queued_jobs() const = 0;
  virtual std::int64_t queued_gpus() const = 0;
  // Queued jobs in submit order (kept by the framework from its first use on).
  virtual const QueueView& queue() const = 0;
  // Running jobs by walltime-based end (kept by the framework from its first use on).
  virtual const RunningByEnd& running_by_walltime_end() const = 0;
  virtual const Changes& changes() const = 0;
  // The run's tenants and their entitlements (docs/tenants.md; without --tenants, the trace's
  // tenants with equal quotas), and the GPUs and GPU-time each tenant's jobs hold.
  virtual const TenantTable& tenants() const = 0;
  virtual const TenantUsage& tenant_usage() const = 0;
  // The placement strategy of this run, and the planning scratch copy of the cluster.
  virtual const PlacementStrategy& placement() const = 0;
  virtual WhatIf& what_if() const = 0;
  // Necessary, not sufficient, for Decisions::find_placement(job) to find GPUs now: enough idle
  // GPUs of the job's type or, in a run that shares GPUs, a partly used GPU for a job asking
  // for part of one. Policies test it before trying a job.
  virtual bool may_start_now(JobIndex job) const {
    const JobView view = this->job(job);
    return cluster().free_gpus_of(view.gpu_type()) >= view.gpus();
  }
  // Whether any job might start now: idle GPUs, or partly used GPUs in a run that shares them.
  virtual bool capacity_left() const { return cluster().free_gpus() > 0; }

  // Progress, as the engine counts it (speed model, restart overhead and checkpoints included).
  // Work done by `job` by now, in reference milliseconds.
  virtual TimeMs work_done_ms(JobIndex job) const = 0;
  // Work the running `job` would keep if preempted now: its last checkpoint (with a checkpoint
  // interval I, the last whole multiple of I of its work; with I = 0, all its work).
  virtual TimeMs work_saved_if_preempted_ms(JobIndex running_job) const = 0;
  // What preempting the running `job` now costs, in GPU-milliseconds: the work since its last
  // checkpoint plus the restart overhead its next start pays, both times its GPU count.
  virtual std::int64_t preemption_cost_gpu_ms(JobIndex running_job) const = 0;
  // The earliest time at which preempting the running `job` keeps, from its current attempt,
  // at least as much work as the restart overhead the preemption costs (and at least 1 ms), up
  // to the next checkpoint; past the attempt's end if it never will. A policy that never preempts
  // earlier moves every preempted job forward by at least its overhead per attempt, so preemption
  // cannot livelock.
  virtual TimeMs earliest_useful_preemption_ms(JobIndex running_job) const = 0;

 protected:
  // The run's job arrays that job() reads, owned by the implementation; set before on_begin.
  // `types`: each job's GPU type index, kAnyGpuType or kUnknownGpuType.
  // `sharing_run`: the run shares GPUs (--gpu-sharing).
  void set_jobs(std::span<const JobSpec> specs, std::span<const JobState> states,
                std::span<const GpuTypeIndex> types, bool sharing_run = false) {
    job_specs_ = specs;
    job_states_ = states;
    job_types_ = types;
    sharing_run_ = sharing_run;
  }

 private:
  std::span<const JobSpec> job_specs_;
  std::span<const JobState> job_states_;
  std::span<const GpuTypeIndex> job_types_;
  bool sharing_run_ = false;
};

class Decisions {
 public:
  virtual ~Decisions() = default;
  // Starts a queued job on exactly these GPUs now. Throws PolicyError if the job is not
  // queued, the GPUs are not free, of the wrong type, or not the job's GPU count.
  virtual void start(JobIndex job, Placement placement) = 0;
  // Where the run's placement strategy would put the job now, or nullopt.
  virtual std::optional<Placement> find_placement(JobIndex job) const = 0;
  // find_placement then start; false (and nothing changes) if it does not fit now.
  bool try_start(JobIndex job);
  // Interrupts a running preemptible job: it keeps its checkpointed work, releases its GPUs
  // now, and returns to the queue (the policy's on_requeue follows after schedule returns).
  virtual void preempt(JobIndex job) = 0;
  // Asks for schedule() to run again at `time_ms` (> now) even if nothing else happens.
  virtual void wake_at(TimeMs time_ms) = 0;
  // Asks for a powered-off node (cluster().node_state(node) == NodeState::kOff) to power on: it
  // boots for --boot-time, drawing power, then offers its GPUs. No-op for a node that is not off.
  // Throws PolicyError for a node index that does not exist. (docs/cluster.md)
  virtual void wake_node(NodeIndex /*node*/) {}
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual void on_begin(const SchedContext& /*ctx*/, const RunSizes& /*sizes*/) {}
  virtual void on_submit(const SchedContext& /*ctx*/, JobIndex /*job*/) {}
  // The job left the running set for good (completed or killed).
  virtual void on_finish(const SchedContext& /*ctx*/, JobIndex /*job*/) {}
  // The job is queued again after a preemption or a failure.
  virtual void on_requeue(const SchedContext& /*ctx*/, JobIndex /*job*/) {}
  virtual void schedule(const SchedContext& ctx, Decisions& decisions) = 0;
};

// Policy parameters given as --param key=value, checked against the policy's declared list.
class PolicyParams {
 public:
  PolicyParams() = default;
  PolicyParams(std::string policy, std::map<std::string, std::string> values)
      : policy_(std::move(policy)), values_(std::move(values)) {}
  // Each throws ConfigError naming policy, key and value when the value does not parse.
  std::int64_t get_int(const std::string& key, std::int64_t fallback) const;
  double get_double(const std::string& key, double fallback) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  const std::map<std::string, std::string>& values() const { return values_; }
  const std::string& policy() const { return policy_; }

 private:
  std::string policy_;
  std::map<std::string, std::string> values_;
};

struct PolicyParamInfo {
  std::string key;
  std::string default_value;
  std::string description;
  // The value's unit or kind, for the policy's card: "s", "GPU-s list", "boolean", "number",
  // "fifo | priority"; "" = not stated.
  std::string unit{};
};

// What a policy's card states beyond its name, summary and parameters (docs/policies.md,
// "Policy cards"). Every built-in policy states all of it, consistent with its file's opening
// comment; a registration that leaves a field empty (plug-ins, Python policies) states nothing
// there, and the card says "not stated".
struct PolicyCardFacts {
  std::string algorithm;  // the algorithm in brief: ordering, what a job that does not fit does
  std::string citation;   // the publication(s) it follows, or "none" for a policy of its own
  // Whether the four below are stated.
  bool inputs_stated = false;
  bool needs_walltimes = false;      // orders or plans by walltime (the trace's, or --estimate)
  bool needs_priorities = false;     // reads the jobs' priority column
  bool preempts = false;             // may preempt running jobs (with its default parameters)
  bool preempts_optionally = false;  // a parameter makes it preempt
};

struct PolicyInfo {
  std::string name;
  std::string summary;
  std::vector<PolicyParamInfo> params;
  std::function<std::unique_ptr<Policy>(const PolicyParams&)> make;
  // Whether the policy schedules by tenant: a run without --tenants then reports tenants as
  // with `--tenants equal` (docs/tenants.md). With card.inputs_stated, also the card's answer
  // to "needs tenants".
  bool uses_tenants = false;
  PolicyCardFacts card{};
};

// Registered policies, sorted by name.
std::vector<PolicyInfo> registered_policies();
// The registered policy `name` stands for (exactly, else without regard to case and '_'/'-'),
// loading it from its policy source when its name has a source's prefix; nullopt when none.
// Throws ConfigError when a source cannot load it.
std::optional<PolicyInfo> find_policy(const std::string& name);

// Policies that exist once something loads them, such as the Python classes of the "py:" names
// (docs/python.md). A name with a source's prefix that is not registered is handed to the
// source, which registers it with register_policy or throws ConfigError. Sources are set at
// start-up; a "py:" name without a source is refused with a message saying so.
using PolicySource = std::function<void(const std::string& name)>;
void set_policy_source(const std::string& prefix, PolicySource source);
// Registers `info` after start-up, replacing a registration of its name made this way; safe
// while other threads look policies up (make_policy and the other queries here).
void register_policy(PolicyInfo info);
// A policy name and its parameters, looked up and checked once: everything a run asks of the
// registry (a run resolves its policy once; docs/design.md).
struct ResolvedPolicy {
  PolicyInfo info;                            // info.name is the registered (canonical) name
  std::map<std::string, std::string> params;  // as given, every key declared by the policy

  // A new instance with `params`.
  std::unique_ptr<Policy> make() const;
  // Every declared parameter with its value in force: `params`' value where given, else the
  // declared default. A value of a parameter whose unit is "s", or whose unit is not stated,
  // given as a time with a unit ("2h") is recorded in seconds ("7200"), as a plain number
  // means the same; every other value is kept as given.
  std::map<std::string, std::string> params_in_force() const;
};
// Throws ConfigError for an unknown policy (listing the known ones, with "did you mean") or a
// key the policy does not declare. A "py:" name needs the Python bridge (the schedlab executable
// of a build with Python, or the schedlab Python module).
ResolvedPolicy resolve_policy(const std::string& name,
                              const std::map<std::string, std::string>& params = {});
// resolve_policy(name, params).make().
std::unique_ptr<Policy> make_policy(const std::string& name,
                                    const std::map<std::string, std::string>& params = {});
// The registered name `name` stands for (equal without regard to case and '_'/'-'), or `name`
// itself when none does.
std::string canonical_policy_name(const std::string& name);
// Whether the registered policy `name` schedules by tenant (false for an unknown name).
bool policy_uses_tenants(const std::string& name);
// Parses "key=value" items; throws ConfigError on a malformed item.
std::map<std::string, std::string> parse_param_list(const std::vector<std::string>& items);

}  // namespace schedlab

// Registers a policy at static-initialization time: SCHEDLAB_REGISTER_POLICY(PolicyInfo{...});
#define SCHEDLAB_REGISTER_POLICY(...) SCHEDLAB_REGISTER(::schedlab::PolicyInfo, __VA_ARGS__)
