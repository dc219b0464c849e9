// Tenants and their entitlements (docs/tenants.md): who a job belongs to, the nominal quota in
// GPUs (optionally per GPU type), the fair-share weight, the borrowing and lending limits and the
// cohort of tenants that lend to each other, as in Kubernetes Kueue's ClusterQueues.
//
// Two steps: `load_tenants_spec` reads the --tenants argument (a JSON file or a shorthand) and
// checks what can be checked without the trace; `resolve_tenants` then binds it to a trace and a
// cluster: every job gets its tenant, shorthands become quotas, quotas are checked against the
// cluster. Both throw ConfigError naming the file and key; nothing is run or written before.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/job.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

using TenantIndex = std::uint32_t;
inline constexpr std::int64_t kUnlimitedGpus = std::numeric_limits<std::int64_t>::max();
// The tenant of jobs whose trace gives none.
inline constexpr const char* kDefaultTenant = "default";

// One tenant's entry as the --tenants file gives it.
struct TenantEntry {
  std::string name;
  std::int64_t quota_gpus = 0;  // nominal quota; with per-type quotas, their sum
  // Per-type nominal quotas (type name, GPUs), in file order; empty: one quota over all types.
  std::vector<std::pair<std::string, std::int64_t>> quota_by_type;
  double weight = -1;  // < 0: not given (defaults to the quota)
  std::int64_t borrowing_limit_gpus = kUnlimitedGpus;
  std::int64_t lending_limit_gpus = kUnlimitedGpus;
  std::string cohort;  // "" : the shared cohort every tenant without one belongs to
};

// The --tenants argument, read and checked as far as it can be without the trace.
struct TenantsSpec {
  enum class Kind : std::uint8_t {
    kFile,          // a JSON file of entries
    kEqual,         // equal quotas and weights over the trace's tenants
    kProportional,  // quotas proportional to each tenant's GPU-hours in the trace
    kPhillyVc,      // Philly's `vc, node num` list, nodes of the cluster's node size
  };
  Kind kind = Kind::kEqual;
  std::string text;  // the argument as given (summary.json echoes it)
  std::string path;  // the file read (kFile, kPhillyVc)
  bool overcommit = false;
  std::vector<TenantEntry> entries;  // kFile; kPhillyVc: quotas in nodes until resolved
};

// Reads "equal", "proportional", "philly-vc:FILE" or FILE. Throws ConfigError for a missing or
// malformed file, an unknown key, a negative quota or limit, a non-finite or negative weight, a
// tenant named twice, or per-type quotas given for some tenants and not others.
TenantsSpec load_tenants_spec(const std::string& text);
// The --tenants argument with the file it names (FILE, or FILE of "philly-vc:FILE") mapped by
// `rewrite`; "equal" and "proportional" as given. A sweep spec resolves its file with it.
std::string rewrite_tenants_spec_file(
    const std::string& text, const std::function<std::string(const std::string&)>& rewrite);

// One tenant of a run, resolved against its trace and cluster.
struct Tenant {
  std::string name;
  std::int64_t quota_gpus = 0;
  // Nominal quota per GpuTypeIndex of the cluster; empty when quotas are over all types.
  std::vector<std::int64_t> quota_by_type;
  double weight = 0;          // >= 0
  double entitled_share = 0;  // weight / sum of weights (0 when every weight is 0)
  std::int64_t borrowing_limit_gpus = kUnlimitedGpus;
  std::int64_t lending_limit_gpus = kUnlimitedGpus;
  std::uint32_t cohort = 0;  // index into TenantTable::cohorts()
};

// The tenants of one run: the table policies and metrics read. Tenants are in the order of the
// file (shorthands: by name), each job's tenant is known, and the table never changes.
class TenantTable {
 public:
  TenantTable() = default;

  const std::vector<Tenant>& tenants() const { return tenants_; }
  std::size_t size() const { return tenants_.size(); }
  const Tenant& tenant(TenantIndex index) const { return tenants_[index]; }
  TenantIndex of_job(JobIndex job) const { return job_tenant_[job]; }
  const std::vector<std::string>& cohorts() const { return cohorts_; }
  // Whether quotas are given per GPU type (then Tenant::quota_by_type is filled for all).
  bool per_type() const { return per_type_; }
  // Whether the run was given --tenants (or a tenant policy implied `equal`): the outputs then
  // report per-tenant metrics.
  bool given() const { return given_; }
  const std::string& source() const { return source_; }

 private:
  friend TenantTable resolve_tenants(const TenantsSpec* spec, const Trace& trace,
                                     const Cluster& cluster);
  std::vector<Tenant> tenants_;
  std::vector<TenantIndex> job_tenant_;
  std::vector<std::string> cohorts_;
  bool per_type_ = false;
  bool given_ = false;
  std::string source_;
};

// Binds `spec` (null: the trace's tenants with equal quotas, not reported) to the trace and the
// cluster. Throws ConfigError "FILE: tenants: ..." for a tenant of the trace missing from a file
// without a `default` entry (those jobs go to `default` when it is there), quotas above the
// cluster's GPUs (in all, or of a type) without "overcommit": true, a per-type quota of a type the
// cluster lacks, or a Philly VC list whose nodes are not of one size.
TenantTable resolve_tenants(const TenantsSpec* spec, const Trace& trace, const Cluster& cluster);

}  // namespace schedlab
