// Built instead of wcsph_hybrid.cu when nvcc is absent.
#include <stdexcept>

#include "sim/backend/hybrid_simulation.h"

namespace surge {

std::unique_ptr<Simulation> make_hybrid_simulation(const SphSetup&, const HybridOptions&) {
  throw std::runtime_error("this build of Surge has no CUDA backend (configured without nvcc)");
}

}  // namespace surge
