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

std::vector<NamedValue> describe_parameters(const DfsphParameters& d) {
  return {{"solver", std::string("dfsph")},
          {"density_error_target_percent", 100.0 * double(d.density_error)},
          {"divergence_error_target_percent", 100.0 * double(d.divergence_error)},
          {"min_iterations", double(d.min_iterations)},
          {"max_iterations", double(d.max_iterations)},
          {"divergence_solve", std::string(d.divergence_solve ? "on" : "off")},
          {"viscosity_m2_per_s", double(d.viscosity)}};
}

std::vector<NamedValue> describe_parameters(const PbfParameters& p) {
  return {{"solver", std::string("pbf")},
          {"iterations", double(p.iterations)},
          {"density_error_target_percent", 100.0 * double(p.density_error)},
          {"relaxation", double(p.relaxation)},
          {"scorr_k", double(p.scorr_k)},
          {"scorr_n", double(p.scorr_n)},
          {"scorr_dq", double(p.scorr_dq)},
          {"xsph", double(p.xsph)},
          {"vorticity", double(p.vorticity)}};
}

}  // namespace surge
