#include "schedlab/job.hpp"

namespace schedlab {

const char* reject_reason_text(RejectReason reason) {
  switch (reason) {
    case RejectReason::kNone: return "";
    case RejectReason::kMoreGpusThanCluster: return "needs more GPUs than the cluster has";
    case RejectReason::kMoreGpusThanType:
      return "needs more GPUs of its gpu_type than the cluster has";
    case RejectReason::kGpuTypeNotInCluster: return "its gpu_type has no GPUs in the cluster";
    case RejectReason::kFitsNoNode:
      return "fits no node: more CPU, memory or GPUs than any one node has, or a MIG profile or "
             "GPU types no node offers";
  }
  return "";
}

const char* comm_sensitivity_name(CommSensitivity comm) {
  switch (comm) {
    case CommSensitivity::kNone: return "none";
    case CommSensitivity::kLow: return "low";
    case CommSensitivity::kMedium: return "medium";
    case CommSensitivity::kHigh: return "high";
  }
  return "medium";
}

bool is_final(JobStatus status) {
  return status == JobStatus::kCompleted || status == JobStatus::kWalltimeReached ||
         status == JobStatus::kRejected;
}

const char* batsim_final_state(JobStatus status) {
  switch (status) {
    case JobStatus::kCompleted: return "COMPLETED_SUCCESSFULLY";
    case JobStatus::kWalltimeReached: return "COMPLETED_WALLTIME_REACHED";
    case JobStatus::kRejected: return "REJECTED";
    case JobStatus::kNotSubmitted: return "NOT_SUBMITTED";
    case JobStatus::kQueued: return "QUEUED";
    case JobStatus::kRunning: return "RUNNING";
  }
  return "UNKNOWN";
}

}  // namespace schedlab
