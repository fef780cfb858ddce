// Built instead of dem_cuda.cu when nvcc is absent: the GPU backend reports why it is missing.
#include <stdexcept>

#include "sim/backend/dem_simulation.h"

namespace surge {

std::size_t device_bytes_per_grain() {
  return 0;
}

std::unique_ptr<DemSimulation> make_dem_cuda_simulation(const DemSetup&, IndexBuild) {
  throw std::runtime_error("this build of Surge has no CUDA backend (configured without nvcc)");
}

std::unique_ptr<DemSimulation> make_dem_hybrid_simulation(const DemSetup&) {
  throw std::runtime_error("this build of Surge has no CUDA backend (configured without nvcc)");
}

}  // namespace surge
