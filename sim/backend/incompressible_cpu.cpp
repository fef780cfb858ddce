#include "sim/backend/cpu_executor.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/sph/dfsph_solver.h"
#include "sim/sph/pbf_solver.h"

namespace surge {

std::unique_ptr<Simulation> make_cpu_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph) {
  return std::make_unique<IncompressibleSimulation<CpuExecutor, DfsphSolver>>(setup, dfsph);
}

std::unique_ptr<Simulation> make_cpu_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf) {
  return std::make_unique<IncompressibleSimulation<CpuExecutor, PbfSolver>>(setup, pbf);
}

}  // namespace surge
