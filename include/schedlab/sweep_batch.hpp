// Sweeps split across batch jobs: shard outputs joined into one results set, and the Slurm
// array scripts that run a spec's shards and then join them.
//
// Contracts:
// - merge_sweep_shards accepts exactly the shards 1/N..N/N of one spec (their sweep.json equal
//   but for "shard"), each a complete output set holding a results row for every cell of its
//   shard. The merged directory is byte-identical to a single run of the spec into it (same
//   cells/, sweep.json, results.*, aggregate.*), so a later `sweep` of the spec into it finds
//   every finished cell done.
// - Nothing is written when a check fails (ConfigError naming the directory, file and value).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/sweep.hpp"

namespace schedlab {

struct SweepMergeOutcome {
  std::size_t shards = 0;
  std::size_t cells = 0;
  std::size_t failed = 0;  // cells whose row says "failed"
};

// Joins the output directories of the shards of one spec into `out_dir` (which must not be one
// of them): copies every finished cell's directory, then writes sweep.json (without "shard")
// and the results and aggregate tables over all cells.
SweepMergeOutcome merge_sweep_shards(const std::vector<std::string>& shard_dirs,
                                     const std::string& out_dir);

// The spec with every file it reads named by an absolute path (traces, cluster files, the
// failure_trace and carbon options), so that batch jobs read it from any directory.
SweepSpec with_absolute_paths(SweepSpec spec);

struct SlurmArrayRequest {
  std::string out_dir;      // absolute: spec.json, the scripts, logs/ and shards/K go here
  std::string executable;   // absolute path of schedlab
  std::string working_dir;  // absolute: the jobs run here (relative policy or tenants files)
  std::size_t shards = 1;   // array tasks, 1..cells
  unsigned cpus_per_task = 1;
  std::string time_limit;  // Slurm --time of each task ("" = the partition's default)
  std::string partition;   // Slurm --partition ("" = the default)
};

// `text` as one word for bash: as it is when it means itself unquoted, else single-quoted. Holds
// any byte but NUL (callers refuse control characters first).
std::string shell_word(const std::string& text);

// The files of a Slurm array run of `spec` (absolute paths, see with_absolute_paths), as
// (name, content) relative to request.out_dir:
// - spec.json: the normalized spec;
// - sweep.sbatch: an array of request.shards tasks, task K running `sweep spec.json --shard
//   K/N -o OUT/shards/K` on its CPUs (resumable: a resubmitted task skips its finished cells);
// - merge.sbatch: `sweep --merge OUT/shards/* -o OUT`, to submit with
//   --dependency=afterany:ARRAY_JOB.
std::vector<std::pair<std::string, std::string>> slurm_array_files(
    const SweepSpec& spec, const SlurmArrayRequest& request);

}  // namespace schedlab
