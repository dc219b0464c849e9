// Whether an MPI launcher started this process, from the variables it sets (mpirun of Open MPI
// and MPICH, srun --mpi=pmix or pmi2).
#include <cstdlib>
#include <optional>
#include <string>

#include "schedlab/csv.hpp"
#include "sweep_mpi.hpp"

namespace schedlab::cli {

namespace {

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

MpiLaunch mpi_launch_from_environment() {
  MpiLaunch launch;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (environment(name)) launch.launched = true;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const auto text = environment(name);
    if (!text) continue;
    const auto size = parse_int(*text);
    if (size && *size >= 1 && *size <= 1'000'000) {
      launch.world_size = static_cast<int>(*size);
      break;
    }
  }
  return launch;
}

}  // namespace schedlab::cli
