#include "sim/backend/simulation_factory.h"

#include <stdexcept>

#include "sim/nbody/nbody_simulation.h"
#include "sim/sph/sph_setup.h"

namespace surge {

std::unique_ptr<Simulation> make_simulation(const Scene& scene, Device device,
                                            const SimulationOptions& options) {
  if (scene.solver == "wcsph") {
    const SphSetup setup = build_setup(scene, options.particles_override);
    return device == Device::gpu ? make_cuda_simulation(setup, options.index_build)
                                 : make_cpu_simulation(setup);
  }
  if (scene.solver == "nbody") {
    const NbodySetup setup = build_nbody_setup(scene, options.particles_override);
    return device == Device::gpu ? make_cuda_nbody_simulation(setup) : make_cpu_nbody_simulation(setup);
  }
  // The loader accepts only solvers listed here; reaching this is a bug, not bad input.
  throw std::logic_error("make_simulation: no backend for solver '" + scene.solver + "'");
}

}  // namespace surge
