// The CPU backend of WCSPH: SolverSimulation over the CPU executor's OpenMP loops. It is also the reference
// the GPU backend is tested against.
#include "sim/backend/cpu_executor.h"
#include "sim/backend/simulation.h"
#include "sim/backend/solver_simulation.h"
#include "sim/sph/wcsph_solver.h"

namespace surge {

std::unique_ptr<Simulation> make_cpu_simulation(const SphSetup& setup) {
  return std::make_unique<SolverSimulation<CpuExecutor, WcsphSolver<CpuExecutor>>>(
      std::forward_as_tuple(setup), std::tuple<>());
}

}  // namespace surge
