// The MPI runner of a schedlab built without MPI (CMake found none, or SCHEDLAB_MPI=OFF): a job
// of one rank is the ordinary sweep; more ranks would each run the whole sweep into the same
// directory, so they are refused.
#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "sweep_mpi.hpp"

namespace schedlab::cli {

int run_sweep_on_mpi_ranks(const MpiLaunch& launch, const MpiSweepCommand& command) {
  if (launch.world_size > 1)
    throw ConfigError(fmt::format(
        "sweep: started by an MPI launcher with {} ranks, but this schedlab was built without "
        "MPI: run it as one process, or rebuild with Open MPI installed (docs/cluster-runs.md)",
        launch.world_size));
  return command.local();
}

}  // namespace schedlab::cli
