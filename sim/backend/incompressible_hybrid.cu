// DFSPH and PBF in the classroom's hybrid modes: the same solver templates as the cpu and gpu modes, on the
// executors that build the cell index on the CPU (hybrid_executor.cuh).
#include "sim/backend/hybrid_fluid_simulation.cuh"
#include "sim/backend/incompressible_capacity.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/sph/dfsph_solver.h"
#include "sim/sph/pbf_solver.h"

namespace surge {

std::unique_ptr<Simulation> make_hybrid_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                         const HybridOptions& options) {
  return make_hybrid_fluid_simulation<DfsphSolver>(setup, options, kDfsphExtraBytes, dfsph);
}

std::unique_ptr<Simulation> make_hybrid_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                       const HybridOptions& options) {
  return make_hybrid_fluid_simulation<PbfSolver>(setup, options, kPbfExtraBytes, pbf);
}

}  // namespace surge
