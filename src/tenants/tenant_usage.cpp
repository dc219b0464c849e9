#include "schedlab/tenant_usage.hpp"

#include <limits>

#include "schedlab/error.hpp"

namespace schedlab {

namespace {

std::int64_t saturating_gpu_ms(std::int64_t used, std::int64_t gpus, TimeMs elapsed_ms) {
  std::int64_t added = 0;
  std::int64_t total = 0;
  if (__builtin_mul_overflow(gpus, elapsed_ms, &added) ||
      __builtin_add_overflow(used, added, &total))
    return std::numeric_limits<std::int64_t>::max();
  return total;
}

}  // namespace

TenantUsage::TenantUsage(std::size_t tenants, std::size_t gpu_types)
    : stride_(gpu_types + 1),
      busy_(tenants * (gpu_types + 1), 0),
      used_(tenants, 0),
      changed_ms_(tenants, 0) {}

std::int64_t TenantUsage::used_gpu_ms(TenantIndex tenant, TimeMs now_ms) const {
  SCHEDLAB_ASSERT(now_ms >= changed_ms_[tenant],
                  "tenant usage is read at or after its last change");
  return saturating_gpu_ms(used_[tenant], busy_gpus(tenant), now_ms - changed_ms_[tenant]);
}

void TenantUsage::change(TenantIndex tenant, const Cluster& cluster, const Placement& placement,
                         TimeMs now_ms, int sign) {
  used_[tenant] = used_gpu_ms(tenant, now_ms);
  changed_ms_[tenant] = now_ms;
  std::int64_t* row = &busy_[tenant * stride_];
  for (const auto& allocation : placement) {
    const std::int64_t gpus = static_cast<std::int64_t>(sign) * allocation.gpu_count();
    row[0] += gpus;
    row[1 + cluster.node(allocation.node).type] += gpus;
  }
  SCHEDLAB_ASSERT(row[0] >= 0, "a tenant never holds fewer than 0 GPUs");
}

}  // namespace schedlab
