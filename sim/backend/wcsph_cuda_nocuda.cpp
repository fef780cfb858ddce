// Built instead of wcsph_cuda.cu when nvcc is absent: the GPU backend reports why it is missing.
#include <stdexcept>

#include "sim/backend/gpu_capacity.h"
#include "sim/backend/simulation.h"

namespace surge {

// Keeps the capacity arithmetic available to messages in CPU-only builds.
std::size_t device_bytes_per_fluid_particle() {
  return 0;
}
std::size_t device_bytes_per_boundary_particle() {
  return 0;
}

std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup&, IndexBuild) {
  throw std::runtime_error("this build of Surge has no CUDA backend (configured without nvcc)");
}

std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup&, const GpuStepOptions&) {
  throw std::runtime_error("this build of Surge has no CUDA backend (configured without nvcc)");
}

}  // namespace surge
