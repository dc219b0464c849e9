// Binding a --tenants spec to a trace and a cluster: each job's tenant, the shorthands' quotas,
// and the checks that need the trace or the cluster (docs/tenants.md).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/tenants.hpp"

namespace schedlab {

namespace {

// GPU-ms sums of a whole trace (up to 1e9 GPUs x 1e15 ms a job) and their products with GPU
// counts need more than 64 bits.
__extension__ typedef __int128 Wide;  // NOLINT(modernize-use-using): __extension__ needs typedef

// The trace's tenant names, each job's index into them, sorted by name.
struct TraceTenants {
  std::vector<std::string> names;     // sorted
  std::vector<std::uint32_t> of_job;  // index into names
  std::vector<std::int64_t> jobs;     // per name
  std::vector<Wide> gpu_ms;           // per name: GPUs x duration
};

TraceTenants trace_tenants(const Trace& trace) {
  std::vector<std::uint32_t> slot_of_id(trace.strings.size(), 0xFFFFFFFFu);
  std::vector<StringId> ids;
  for (const auto& job : trace.jobs) {
    if (slot_of_id[job.tenant] != 0xFFFFFFFFu) continue;
    slot_of_id[job.tenant] = 0;
    ids.push_back(job.tenant);
  }
  auto name_of = [&trace](StringId id) {
    return id == 0 ? std::string(kDefaultTenant) : trace.strings.str(id);
  };
  // A trace may name a tenant "default" and also have jobs without one: they are one tenant.
  std::map<std::string, std::uint32_t> index;
  for (StringId id : ids) index.emplace(name_of(id), 0);
  TraceTenants out;
  for (auto& [name, slot] : index) {
    slot = static_cast<std::uint32_t>(out.names.size());
    out.names.push_back(name);
  }
  for (StringId id : ids) slot_of_id[id] = index.at(name_of(id));
  out.jobs.assign(out.names.size(), 0);
  out.gpu_ms.assign(out.names.size(), 0);
  out.of_job.reserve(trace.jobs.size());
  for (const auto& job : trace.jobs) {
    const std::uint32_t slot = slot_of_id[job.tenant];
    out.of_job.push_back(slot);
    ++out.jobs[slot];
    out.gpu_ms[slot] += static_cast<Wide>(job.gpus) * job.duration_ms;
  }
  return out;
}

// `total` split over shares proportional to `amounts` by the largest-remainder method (ties:
// earlier index); every amount 0: split equally.
std::vector<std::int64_t> largest_remainder(std::int64_t total, const std::vector<Wide>& amounts) {
  Wide sum = 0;
  for (const auto a : amounts) sum += a;
  std::vector<Wide> weights = amounts;
  if (sum == 0) {
    std::fill(weights.begin(), weights.end(), 1);
    sum = static_cast<Wide>(weights.size());
  }
  std::vector<std::int64_t> out(weights.size());
  std::vector<std::pair<Wide, std::size_t>> remainders;
  std::int64_t given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const Wide scaled = static_cast<Wide>(total) * weights[i];
    out[i] = static_cast<std::int64_t>(scaled / sum);
    given += out[i];
    remainders.emplace_back(scaled % sum, i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; given < total && k < remainders.size(); ++k, ++given)
    ++out[remainders[k].second];
  return out;
}

// The node size Philly's VC node counts are in: every node of the cluster must have it.
int uniform_node_gpus(const Cluster& cluster, const TenantsSpec& spec) {
  const int gpus = cluster.nodes().front().gpus;
  for (const auto& node : cluster.nodes())
    if (node.gpus != gpus)
      throw ConfigError(fmt::format(
          "{}: tenants: Philly VC quotas are counted in nodes, but the cluster's nodes have {} "
          "and {} GPUs (use a cluster of one node size or a --tenants JSON file)",
          spec.path, gpus, node.gpus));
  return gpus;
}

std::string type_list(const Cluster& cluster) {
  std::string out;
  for (const auto& type : cluster.gpu_types())
    if (const auto index = cluster.find_gpu_type(type.name);
        index && cluster.total_gpus_of(*index) > 0)
      out += (out.empty() ? "" : ", ") + type.name;
  return out;
}

}  // namespace

TenantTable resolve_tenants(const TenantsSpec* spec, const Trace& trace, const Cluster& cluster) {
  const TraceTenants in_trace = trace_tenants(trace);
  TenantTable table;
  table.given_ = spec != nullptr;
  table.source_ = spec ? spec->text : "equal";
  const TenantsSpec::Kind kind = spec ? spec->kind : TenantsSpec::Kind::kEqual;
  const std::int64_t total_gpus = cluster.total_gpus();
  table.cohorts_.emplace_back("");

  if (kind == TenantsSpec::Kind::kEqual || kind == TenantsSpec::Kind::kProportional) {
    std::vector<Wide> amounts(in_trace.names.size(), 1);
    if (kind == TenantsSpec::Kind::kProportional) amounts = in_trace.gpu_ms;
    const std::vector<std::int64_t> quotas = largest_remainder(total_gpus, amounts);
    Wide amount_sum = 0;
    for (const auto a : amounts) amount_sum += a;
    for (std::size_t i = 0; i < in_trace.names.size(); ++i) {
      Tenant tenant;
      tenant.name = in_trace.names[i];
      tenant.quota_gpus = quotas[i];
      tenant.weight = kind == TenantsSpec::Kind::kEqual || amount_sum == 0
                          ? 1.0
                          : static_cast<double>(amounts[i]) / static_cast<double>(amount_sum);
      table.tenants_.push_back(std::move(tenant));
    }
    table.job_tenant_ = in_trace.of_job;
  } else {
    const std::string& source = spec->path;
    const int node_gpus =
        kind == TenantsSpec::Kind::kPhillyVc ? uniform_node_gpus(cluster, *spec) : 1;
    std::map<std::string, TenantIndex> index;
    std::map<std::string, std::uint32_t> cohort_index{{"", 0}};
    table.per_type_ = !spec->entries.front().quota_by_type.empty();
    for (const auto& entry : spec->entries) {
      Tenant tenant;
      tenant.name = entry.name;
      tenant.quota_gpus = entry.quota_gpus * node_gpus;
      if (table.per_type_) {
        tenant.quota_by_type.assign(cluster.gpu_types().size(), 0);
        for (const auto& [type_name, gpus] : entry.quota_by_type) {
          const auto type = cluster.find_gpu_type(type_name);
          if (!type || cluster.total_gpus_of(*type) == 0)
            throw ConfigError(fmt::format(
                "{}: tenants: {}: quota of GPU type '{}', which the cluster does not have "
                "(it has: {})",
                source, entry.name, type_name, type_list(cluster)));
          tenant.quota_by_type[*type] += gpus;
        }
      }
      tenant.weight = entry.weight >= 0 ? entry.weight : static_cast<double>(tenant.quota_gpus);
      tenant.borrowing_limit_gpus = entry.borrowing_limit_gpus;
      tenant.lending_limit_gpus = entry.lending_limit_gpus;
      const auto [it, added] =
          cohort_index.emplace(entry.cohort, static_cast<std::uint32_t>(table.cohorts_.size()));
      if (added) table.cohorts_.push_back(entry.cohort);
      tenant.cohort = it->second;
      index.emplace(tenant.name, static_cast<TenantIndex>(table.tenants_.size()));
      table.tenants_.push_back(std::move(tenant));
    }
    const auto fallback = index.find(kDefaultTenant);
    std::vector<TenantIndex> of_trace_name(in_trace.names.size());
    for (std::size_t i = 0; i < in_trace.names.size(); ++i) {
      const auto it = index.find(in_trace.names[i]);
      if (it != index.end()) {
        of_trace_name[i] = it->second;
      } else if (fallback != index.end()) {
        of_trace_name[i] = fallback->second;
      } else {
        throw ConfigError(fmt::format(
            "{}: tenants: tenant '{}' of the trace ({} jobs) has no entry, and there is no "
            "'{}' entry for the tenants not listed",
            source, in_trace.names[i], in_trace.jobs[i], kDefaultTenant));
      }
    }
    table.job_tenant_.reserve(trace.jobs.size());
    for (const std::uint32_t slot : in_trace.of_job)
      table.job_tenant_.push_back(of_trace_name[slot]);

    if (!spec->overcommit) {
      std::int64_t sum = 0;
      for (const auto& tenant : table.tenants_) sum += tenant.quota_gpus;
      if (sum > total_gpus)
        throw ConfigError(
            fmt::format("{}: tenants: quotas add up to {} GPUs, more than the cluster's {} (set "
                        "\"overcommit\": true to allow it)",
                        source, sum, total_gpus));
      if (table.per_type_) {
        for (GpuTypeIndex type = 0; type < cluster.gpu_types().size(); ++type) {
          std::int64_t of_type = 0;
          for (const auto& tenant : table.tenants_) of_type += tenant.quota_by_type[type];
          if (of_type > cluster.total_gpus_of(type))
            throw ConfigError(fmt::format(
                "{}: tenants: {} quotas add up to {} GPUs, more than the cluster's {} (set "
                "\"overcommit\": true to allow it)",
                source, cluster.gpu_types()[type].name, of_type, cluster.total_gpus_of(type)));
        }
      }
    }
  }
  double weight_sum = 0;
  for (const auto& tenant : table.tenants_) weight_sum += tenant.weight;
  for (auto& tenant : table.tenants_)
    tenant.entitled_share = weight_sum > 0 ? tenant.weight / weight_sum : 0.0;
  return table;
}

}  // namespace schedlab
