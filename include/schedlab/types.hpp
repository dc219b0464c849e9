// Basic vocabulary types shared by every component.
#pragma once

#include <cstdint>
#include <limits>

namespace schedlab {

// Simulated time in integer milliseconds since the trace's time origin.
using TimeMs = std::int64_t;
inline constexpr TimeMs kNever = std::numeric_limits<TimeMs>::max();

// a + b for non-negative durations, saturating at kNever.
inline constexpr TimeMs saturating_add(TimeMs a, TimeMs b) {
  return a > kNever - b ? kNever : a + b;
}

// Index of a job in the loaded trace (trace order); stable for the whole run.
using JobIndex = std::uint32_t;
// Index of a node in the cluster (cluster-spec order).
using NodeIndex = std::uint32_t;
// Index of a GPU type in the cluster's type table.
using GpuTypeIndex = std::uint32_t;
inline constexpr GpuTypeIndex kAnyGpuType = std::numeric_limits<GpuTypeIndex>::max();
// A job's gpu_type that the cluster does not have (such jobs are rejected at submit).
inline constexpr GpuTypeIndex kUnknownGpuType = kAnyGpuType - 1;

// Bit i set = GPU i of a node. Nodes hold 1 to 64 GPUs.
using GpuMask = std::uint64_t;
inline constexpr int kMaxGpusPerNode = 64;

inline constexpr double kMsPerSecond = 1000.0;
inline constexpr double kMsPerHour = 3600.0 * 1000.0;

}  // namespace schedlab
