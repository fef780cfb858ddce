// A fluid solver template (FluidSolver's family: DFSPH, PBF, and WCSPH once it is WcsphSolver<Exec>) behind
// surge::Simulation in the classroom's hybrid modes: SolverSimulation over HybridExecutor, or over
// HybridOverlapExecutor with the setup on the skin grid (hybrid_executor.cuh). Include it in the one .cu that
// instantiates a solver's hybrid modes.
#pragma once

#include <cstdint>
#include <memory>
#include <tuple>

#include "sim/backend/gpu_capacity.h"
#include "sim/backend/hybrid_executor.cuh"
#include "sim/backend/skin_schedule.h"
#include "sim/backend/solver_simulation.h"

namespace surge {

// Beyond the gpu mode's bytes per particle: the CPU's sorted order, and in hybrid-overlap the next index's
// positions and the present one's (the skin check's reference).
inline std::size_t hybrid_extra_bytes(const HybridOptions& options) {
  return sizeof(std::uint32_t) + (options.overlap ? 2 * sizeof(Vec4f) : 0);
}

// Solver<Exec>(exec, setup, settings...); solver_bytes: its per-particle device bytes beyond FluidState's.
template <template <typename> class Solver, typename... Settings>
std::unique_ptr<Simulation> make_hybrid_fluid_simulation(const SphSetup& setup, const HybridOptions& options,
                                                         std::size_t solver_bytes,
                                                         const Settings&... settings) {
  const DeviceDemand demand = sph_demand(setup, solver_bytes + hybrid_extra_bytes(options));
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&]() -> std::unique_ptr<Simulation> {
    if (!options.overlap)
      return std::make_unique<SolverSimulation<HybridExecutor, Solver<HybridExecutor>>>(
          std::forward_as_tuple(setup, settings...), std::forward_as_tuple(gpu));
    const float skin = options.skin_ratio * setup.params.support;
    return std::make_unique<SolverSimulation<HybridOverlapExecutor, Solver<HybridOverlapExecutor>>>(
        std::forward_as_tuple(with_skin_grid(setup, skin), settings...),
        std::forward_as_tuple(gpu, options, skin));
  });
}

}  // namespace surge
