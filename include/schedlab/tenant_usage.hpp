// What each tenant's running jobs hold: GPUs now (in all and per GPU type) and GPU-time used
// since the run began. The engine alone writes it (at every start and every end of an attempt);
// policies and observers read it through SchedContext and RunView.
#pragma once

#include <cstdint>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/placement.hpp"
#include "schedlab/tenants.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

class TenantUsage {
 public:
  TenantUsage() = default;
  TenantUsage(std::size_t tenants, std::size_t gpu_types);

  // A job of `tenant` starts (add) or ends an attempt (remove) on `placement` at `now_ms`.
  void add(TenantIndex tenant, const Cluster& cluster, const Placement& placement, TimeMs now_ms) {
    change(tenant, cluster, placement, now_ms, 1);
  }
  void remove(TenantIndex tenant, const Cluster& cluster, const Placement& placement,
              TimeMs now_ms) {
    change(tenant, cluster, placement, now_ms, -1);
  }

  // GPUs the tenant's running jobs hold, in all (kAnyGpuType) or of one type.
  std::int64_t busy_gpus(TenantIndex tenant, GpuTypeIndex type = kAnyGpuType) const {
    return busy_[tenant * stride_ + (type == kAnyGpuType ? 0 : type + 1)];
  }
  // GPU-milliseconds the tenant's jobs held from the start of the run to `now_ms` (>= the last
  // change), exactly; saturates at INT64_MAX.
  std::int64_t used_gpu_ms(TenantIndex tenant, TimeMs now_ms) const;

 private:
  void change(TenantIndex tenant, const Cluster& cluster, const Placement& placement, TimeMs now_ms,
              int sign);

  std::size_t stride_ = 1;          // 1 + GPU types
  std::vector<std::int64_t> busy_;  // [tenant * stride + 0]: all; [.. + 1 + type]: of a type
  std::vector<std::int64_t> used_;  // GPU-ms up to changed_ms_
  std::vector<TimeMs> changed_ms_;  // last change per tenant
};

}  // namespace schedlab
