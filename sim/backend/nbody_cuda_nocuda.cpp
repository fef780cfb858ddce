// Built instead of nbody_cuda.cu when nvcc is absent: the GPU entry point says why it is missing.
#include <stdexcept>

#include "sim/backend/nbody_simulation.h"

namespace surge {

std::unique_ptr<Simulation> make_cuda_nbody_simulation(const NbodySetup&) {
  throw std::runtime_error("built without CUDA");
}

}  // namespace surge
