// The granular solver on the CPU: DemSolver's step in OpenMP loops. It is the reference the GPU backend is
// tested against.
#include <memory>
#include <tuple>

#include "sim/backend/cpu_executor.h"
#include "sim/backend/dem_solver_simulation.h"

namespace surge {

std::unique_ptr<DemSimulation> make_dem_cpu_simulation(const DemSetup& setup, DemCpuOptions options) {
  return std::make_unique<DemSolverSimulation<CpuExecutor>>(std::forward_as_tuple(setup, options.reorder),
                                                            std::tuple<>());
}

}  // namespace surge
