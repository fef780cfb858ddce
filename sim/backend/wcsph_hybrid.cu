// WCSPH in the classroom's hybrid modes: the same WcsphSolver as the cpu and gpu modes, on the executors that
// build the cell index on the CPU (hybrid_executor.cuh).
#include "sim/backend/hybrid_fluid_simulation.cuh"
#include "sim/backend/hybrid_simulation.h"
#include "sim/sph/wcsph_solver.h"

namespace surge {

std::unique_ptr<Simulation> make_hybrid_simulation(const SphSetup& setup, const HybridOptions& options) {
  // device_bytes_per_fluid_particle() is WCSPH's own: nothing beyond it but the hybrid executors' buffers.
  return make_hybrid_fluid_simulation<WcsphSolver>(setup, options, 0);
}

}  // namespace surge
