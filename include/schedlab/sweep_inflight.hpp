// The in-flight journal of a sweep run on the ranks of an MPI job: OUT/mpi-inflight.json,
// naming every cell handed to a rank and not yet reported back, with the rank, its host and pid.
//
// Contracts:
// - The coordinator replaces the journal atomically on every assignment and completion, and
//   the sweep removes it when it ends normally; a journal left in OUT therefore names the cells
//   that were running when the job stopped (a rank died, mpirun or the batch system killed it).
// - Any later sweep into OUT (with or without MPI) reads it, reports the cells that are not
//   done on disk, runs them again with the rest, and removes it at the end.
// - An unreadable journal reads as none: it is informative only, cell.json decides what is done.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace schedlab {

struct SweepInflightCell {
  std::size_t cell = 0;
  int rank = 0;
  std::string host;
  long pid = 0;
};

inline constexpr const char* kSweepInflightJournal = "mpi-inflight.json";

void write_sweep_inflight(const std::string& out_dir, const std::vector<SweepInflightCell>& cells);
std::vector<SweepInflightCell> read_sweep_inflight(const std::string& out_dir);
void remove_sweep_inflight(const std::string& out_dir);

// "the previous MPI run stopped with cell 5 in flight on rank 2 (pid 1234 on host vm); it runs
// again"
std::string interrupted_cell_text(const SweepInflightCell& cell);

}  // namespace schedlab
