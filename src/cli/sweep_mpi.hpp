// `mpirun -n N schedlab sweep ...`: the sweep's cells run on the ranks of an MPI job.
//
// Contracts:
// - Only a process started by an MPI launcher (mpi_launch_from_environment) calls MPI at all;
//   a job of one rank runs the ordinary sweep.
// - With N > 1 ranks, rank 0 coordinates: it checks the inputs (on an error every rank exits
//   with the error's exit code and rank 0 alone prints it, nothing written), scans OUT for
//   finished cells, hands the pending cells out largest first (largest_first) to ranks 1..N-1
//   as they ask, keeps the in-flight journal (sweep_inflight.hpp), gathers each cell's status,
//   summary and error, and writes the tables. Ranks 1..N-1 run up to `jobs` cells at once each
//   and write each cell's files into OUT themselves: OUT must be on a filesystem every rank
//   sees. The output tree equals the one of `schedlab sweep -j 1` byte for byte.
// - A rank that dies loses only the cells it had in flight: the cells reported before are on
//   disk, and a later sweep into OUT names the lost ones and runs them again.
#pragma once

#include <functional>
#include <string>

#include "schedlab/sweep.hpp"

namespace schedlab::cli {

struct MpiLaunch {
  bool launched = false;  // OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK or PMI_SIZE is set
  int world_size = 0;     // from OMPI_COMM_WORLD_SIZE or PMI_SIZE; 0 = not told
};
MpiLaunch mpi_launch_from_environment();

// The sweep command, as the MPI runner calls it.
struct MpiSweepCommand {
  // The command as one process (a job of one rank).
  std::function<int()> local;
  // Rank 0: the checked spec of the command line; fills `options` (out_dir, rerun, shard,
  // progress). Throws what the local sweep throws for bad input, and ConfigError for what
  // cannot run on `ranks` ranks (--merge, --emit-slurm).
  std::function<SweepSpec(int ranks, SweepRunOptions& options)> prepare;
  // Rank 0: prints the outcome as the local sweep does and returns the exit code (or throws
  // the first failed cell's error). `workers` describes who ran the cells.
  std::function<int(const SweepRunOptions& options, const SweepOutcome& outcome, double wall_s,
                    const std::string& workers)>
      report;
  unsigned jobs = 1;  // cells this rank runs at once
};

// Runs `command` on the ranks of the MPI job of this process (see the contracts above); without
// MPI support, refuses a job of more than one rank (ConfigError) and otherwise runs it locally.
int run_sweep_on_mpi_ranks(const MpiLaunch& launch, const MpiSweepCommand& command);

}  // namespace schedlab::cli
