// The policy interface: what a scheduling policy sees (SchedContext), what it may ask for
// (Decisions), and how it registers itself by name.
//
// Contract ("the policy proposes, the engine disposes"):
// - Hooks on_submit / on_finish / on_requeue tell the policy what changed since its last call,
//   so it can keep its own ordered structures incrementally; then schedule() runs once per
//   instant where something changed, after every event of that instant has been applied.
// - A policy never mutates cluster or job state. Decisions validates each request against the
//   current free GPUs and applies it; an illegal request throws PolicyError naming the policy,
//   the job and the reason.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/job.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

struct RunOptions;

// Read-only view of the simulation for policies and observers.
class SchedContext {
 public:
  virtual ~SchedContext() = default;
  virtual TimeMs now() const = 0;
  virtual const Cluster& cluster() const = 0;
  virtual const Trace& trace() const = 0;
  virtual const JobState& state(JobIndex job) const = 0;
  virtual const RunOptions& options() const = 0;
  // GPU type a job is constrained to (kAnyGpuType when unconstrained).
  virtual GpuTypeIndex job_gpu_type(JobIndex job) const = 0;
  // Running jobs; order is deterministic but unspecified.
  virtual const std::vector<JobIndex>& running() const = 0;
  virtual std::size_t queued_jobs() const = 0;
  virtual std::int64_t queued_gpus() const = 0;
  // The placement strategy of this run.
  virtual const PlacementStrategy& placement() const = 0;

  const JobSpec& spec(JobIndex job) const { return trace().jobs[job]; }
  // When a running job will end at the latest, from its walltime (what policies may know).
  TimeMs walltime_end_ms(JobIndex running_job) const;
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

 private:
  std::string policy_;
  std::map<std::string, std::string> values_;
};

struct PolicyParamInfo {
  std::string key;
  std::string default_value;
  std::string description;
};

struct PolicyInfo {
  std::string name;
  std::string summary;
  std::vector<PolicyParamInfo> params;
  std::function<std::unique_ptr<Policy>(const PolicyParams&)> make;
};

bool register_policy(PolicyInfo info);
// Registered policies, sorted by name.
std::vector<PolicyInfo> registered_policies();
// Throws ConfigError for an unknown policy (listing the known ones) or an unknown key.
std::unique_ptr<Policy> make_policy(const std::string& name,
                                    const std::map<std::string, std::string>& params = {});
// Parses "key=value" items; throws ConfigError on a malformed item.
std::map<std::string, std::string> parse_param_list(const std::vector<std::string>& items);

}  // namespace schedlab

#define SCHEDLAB_CONCAT_INNER(a, b) a##b
#define SCHEDLAB_CONCAT(a, b) SCHEDLAB_CONCAT_INNER(a, b)
// Registers a policy at static-initialization time: SCHEDLAB_REGISTER_POLICY(PolicyInfo{...});
#define SCHEDLAB_REGISTER_POLICY(...)                                                  \
  namespace {                                                                          \
  [[maybe_unused]] const bool SCHEDLAB_CONCAT(schedlab_policy_registered_, __LINE__) = \
      ::schedlab::register_policy(__VA_ARGS__);                                        \
  }
