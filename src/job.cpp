#include "schedlab/job.hpp"

namespace schedlab {

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
