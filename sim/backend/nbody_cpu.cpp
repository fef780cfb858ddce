// The n-body solver on the CPU, in double: the reference the GPU is tested against and the one the
// conservation tests run.
#include "sim/backend/cpu_executor.h"
#include "sim/backend/nbody_simulation.h"
#include "sim/backend/solver_simulation.h"
#include "sim/nbody/nbody_solver.h"

namespace surge {

std::unique_ptr<Simulation> make_cpu_nbody_simulation(const NbodySetup& setup) {
  return std::make_unique<SolverSimulation<CpuExecutor, NbodySolver<CpuExecutor, double>>>(
      std::forward_as_tuple(setup), std::tuple<>());
}

}  // namespace surge
