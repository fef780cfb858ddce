// DFSPH and PBF in the classroom's hybrid modes: the same solver templates as the cpu and gpu modes, on the
// executors that build the cell index on the CPU (hybrid_executor.cuh).
#include "sim/backend/gpu_capacity.h"
#include "sim/backend/hybrid_executor.cuh"
#include "sim/backend/incompressible_capacity.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/skin_schedule.h"
#include "sim/backend/solver_simulation.h"
#include "sim/sph/dfsph_solver.h"
#include "sim/sph/pbf_solver.h"

namespace surge {

namespace {

// Beyond the gpu mode's bytes per particle: the CPU's sorted order, and in hybrid-overlap the next index's
// positions and the present one's (the skin check's reference).
std::size_t hybrid_extra_bytes(const HybridOptions& options) {
  return sizeof(std::uint32_t) + (options.overlap ? 2 * sizeof(Vec4f) : 0);
}

template <template <typename> class Solver, typename Settings>
std::unique_ptr<Simulation> make_hybrid(const SphSetup& setup, const Settings& settings,
                                        const HybridOptions& options, std::size_t solver_bytes) {
  const GpuInfo gpu = gpu_for(setup, solver_bytes + hybrid_extra_bytes(options));
  if (!options.overlap)
    return std::make_unique<SolverSimulation<HybridExecutor, Solver<HybridExecutor>>>(
        std::forward_as_tuple(setup, settings), std::forward_as_tuple(gpu));
  const float skin = options.skin_ratio * setup.params.support;
  return std::make_unique<SolverSimulation<HybridOverlapExecutor, Solver<HybridOverlapExecutor>>>(
      std::forward_as_tuple(with_skin_grid(setup, skin), settings),
      std::forward_as_tuple(gpu, options, skin));
}

}  // namespace

std::unique_ptr<Simulation> make_hybrid_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                         const HybridOptions& options) {
  return make_hybrid<DfsphSolver>(setup, dfsph, options, kDfsphExtraBytes);
}

std::unique_ptr<Simulation> make_hybrid_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                       const HybridOptions& options) {
  return make_hybrid<PbfSolver>(setup, pbf, options, kPbfExtraBytes);
}

}  // namespace surge
