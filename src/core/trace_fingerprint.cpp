#include "schedlab/trace_fingerprint.hpp"

#include "schedlab/fingerprint.hpp"

namespace schedlab {

std::string trace_fingerprint(const Trace& trace) {
  Fingerprint hash;
  for (const auto& job : trace.jobs) {
    for (const unsigned char c : job.id) hash.add_u64(c);
    hash.add_u64(static_cast<std::uint64_t>(job.submit_ms));
    hash.add_u64(static_cast<std::uint64_t>(job.gpus));
    hash.add_u64(static_cast<std::uint64_t>(job.duration_ms));
    hash.add_u64(static_cast<std::uint64_t>(job.walltime_ms));
    hash.add_u64(static_cast<std::uint64_t>(job.priority));
    hash.add_u64(job.preemptible ? 1 : 0);
    for (const unsigned char c : trace.strings.str(job.gpu_type)) hash.add_u64(c);
    if (job.uses_sharing()) {  // only then, so whole-GPU traces keep their fingerprints
      hash.add_u64(static_cast<std::uint64_t>(job.gpu_milli));
      hash.add_u64(static_cast<std::uint64_t>(job.cpu_milli));
      hash.add_u64(static_cast<std::uint64_t>(job.memory_mib));
      for (const unsigned char c : trace.strings.str(job.mig_profile)) hash.add_u64(c);
      for (const StringId type : trace.gpu_type_sets[job.gpu_type_set])
        for (const unsigned char c : trace.strings.str(type)) hash.add_u64(c);
    }
  }
  hash.add_u64(trace.jobs.size());
  return hash.hex();
}

}  // namespace schedlab
