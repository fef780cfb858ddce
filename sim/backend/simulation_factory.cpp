#include "sim/backend/simulation_factory.h"

#include <cstdint>
#include <stdexcept>

#include "sim/backend/hybrid_simulation.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/dem/dem_simulation.h"
#include "sim/nbody/nbody_setup.h"
#include "sim/nbody/nbody_simulation.h"
#include "sim/sph/sph_setup.h"

namespace surge {

std::unique_ptr<Simulation> make_simulation(const Scene& scene, Device device,
                                            const SimulationOptions& options) {
  if (scene.solver == SolverKind::wcsph) {
    const SphSetup setup = build_setup(scene, options.particles_override);
    return make_wcsph_simulation(setup, device == Device::gpu ? ExecutionMode::gpu : ExecutionMode::cpu,
                                 options);
  }
  if (scene.solver == SolverKind::dfsph) {
    const SphSetup setup = build_setup(scene, options.particles_override);
    return device == Device::gpu ? make_cuda_dfsph_simulation(setup, scene.dfsph, options.index_build)
                                 : make_cpu_dfsph_simulation(setup, scene.dfsph);
  }
  if (scene.solver == SolverKind::pbf) {
    const SphSetup setup = build_setup(scene, options.particles_override);
    return device == Device::gpu ? make_cuda_pbf_simulation(setup, scene.pbf, options.index_build)
                                 : make_cpu_pbf_simulation(setup, scene.pbf);
  }
  if (scene.solver == SolverKind::nbody) {
    const NbodySetup setup = build_nbody_setup(scene, options.particles_override);
    return device == Device::gpu ? make_cuda_nbody_simulation(setup) : make_cpu_nbody_simulation(setup);
  }
  if (scene.solver == SolverKind::dem) {
    const DemSetup setup = build_dem_setup(scene, options.particles_override);
    return device == Device::gpu ? make_dem_cuda_simulation(setup, options.index_build)
                                 : make_dem_cpu_simulation(setup);
  }
  // The loader accepts only solvers listed here; reaching this is a bug, not bad input.
  throw std::logic_error("make_simulation: no backend for solver '" + std::string(solver_name(scene.solver)) +
                         "'");
}

std::unique_ptr<Simulation> make_simulation(const Scene& scene, ExecutionMode mode,
                                            const SimulationOptions& options) {
  if (mode == ExecutionMode::cpu || mode == ExecutionMode::gpu)
    return make_simulation(scene, mode == ExecutionMode::gpu ? Device::gpu : Device::cpu, options);
  if (const std::string why = why_solver_lacks_mode(scene.solver, mode); !why.empty())
    throw std::invalid_argument(std::string("mode ") + mode_name(mode) + ": " + why);
  if (scene.solver == SolverKind::dem)
    return make_dem_hybrid_simulation(build_dem_setup(scene, options.particles_override));
  return make_wcsph_simulation(build_setup(scene, options.particles_override), mode, options);
}

std::unique_ptr<Simulation> make_wcsph_simulation(const SphSetup& setup, ExecutionMode mode,
                                                  const SimulationOptions& options) {
  switch (mode) {
    case ExecutionMode::cpu:
      return make_cpu_simulation(setup);
    case ExecutionMode::hybrid:
    case ExecutionMode::hybrid_overlap:
      // The hybrid modes rebuild the index on the host from a fixed particle count; an emitter's growing
      // count would need the host to know it every step, which is what the gpu mode avoids.
      if (setup.emitter.present)
        throw std::invalid_argument(std::string("mode ") + mode_name(mode) +
                                    " does not run scenes with an [[emitter]]; use the cpu or gpu mode");
      return make_hybrid_simulation(setup, HybridOptions{.overlap = mode == ExecutionMode::hybrid_overlap,
                                                         .skin_ratio = options.skin_ratio});
    case ExecutionMode::gpu:
      return make_cuda_simulation(setup, GpuStepOptions{.index_build = options.index_build,
                                                        .reorder = options.reorder,
                                                        .force_pass = options.force_pass});
  }
  throw std::logic_error("make_wcsph_simulation: unknown mode");
}

SphSetup continue_from(const SphSetup& setup, const ParticleFrame& frame) {
  SphSetup continued;
  continued.params = setup.params;
  continued.grid = setup.grid;
  continued.boundary = setup.boundary;
  continued.boundary_cell_start = setup.boundary_cell_start;
  continued.fluid = frame;
  // The emitter goes on where it was: its particles so far are in the frame, the rest of its allocation
  // stays for it (SphSetup::capacity() is unchanged), and its schedule resumes at the frame's time.
  continued.emitter = setup.emitter;
  if (setup.emitter.present) {
    const std::size_t capacity = setup.capacity();
    continued.emitter.max_particles =
        std::uint32_t(capacity > frame.size() ? capacity - frame.size() : std::size_t(0));
  }
  return continued;
}

std::unique_ptr<Simulation> switch_execution_mode(Simulation& running, const SphSetup& setup,
                                                  ExecutionMode mode, const SimulationOptions& options) {
  ParticleFrame frame;
  running.download(frame);
  return make_wcsph_simulation(continue_from(setup, frame), mode, options);
}

std::unique_ptr<Simulation> switch_execution_mode(Simulation& running, const Scene& scene, ExecutionMode mode,
                                                  const SimulationOptions& options) {
  if (const std::string why = why_solver_lacks_mode(scene.solver, mode); !why.empty())
    throw std::invalid_argument(std::string("cannot switch to mode ") + mode_name(mode) + ": " + why);
  const bool gpu = mode == ExecutionMode::gpu;
  if (scene.solver == SolverKind::dem) {
    // Grains carry their spin and contact history over, so the continued run is the same run.
    auto* grains = dynamic_cast<DemSimulation*>(&running);
    if (grains == nullptr)
      throw std::logic_error("switch_execution_mode: a dem scene without a DemSimulation");
    DemSetup setup = build_dem_setup(scene, options.particles_override);
    running.download(setup.grains);
    if (setup.params.rotation) grains->download_angular_velocity(setup.angular_velocity);
    if (setup.params.friction_model == FrictionModel::mindlin)
      grains->download_contact_history(setup.history);
    if (mode == ExecutionMode::hybrid) return make_dem_hybrid_simulation(setup);
    return gpu ? make_dem_cuda_simulation(setup, options.index_build) : make_dem_cpu_simulation(setup);
  }
  if (scene.solver == SolverKind::nbody) {
    // Bodies by creation id; a frame holds them in float, the GPU's precision (the CPU runs in double).
    NbodySetup setup = build_nbody_setup(scene, options.particles_override);
    ParticleFrame frame;
    running.download(frame);
    if (frame.size() != setup.size())
      throw std::logic_error("switch_execution_mode: the running n-body system has another body count");
    for (std::size_t k = 0; k < frame.size(); ++k) {
      const std::uint32_t id = frame.id[k];
      const Vec4f x = frame.position[k], v = frame.velocity[k];
      setup.bodies[id].x = {double(x.x), double(x.y), double(x.z)};
      setup.bodies[id].m = double(x.w);
      setup.velocities[id] = {double(v.x), double(v.y), double(v.z)};
    }
    setup.time_s = frame.time_s;
    setup.step = frame.step;
    return gpu ? make_cuda_nbody_simulation(setup) : make_cpu_nbody_simulation(setup);
  }
  const SphSetup setup = build_setup(scene, options.particles_override);
  if (scene.solver == SolverKind::wcsph) return switch_execution_mode(running, setup, mode, options);
  ParticleFrame frame;
  running.download(frame);
  const SphSetup continued = continue_from(setup, frame);
  if (scene.solver == SolverKind::dfsph)
    return gpu ? make_cuda_dfsph_simulation(continued, scene.dfsph, options.index_build)
               : make_cpu_dfsph_simulation(continued, scene.dfsph);
  return gpu ? make_cuda_pbf_simulation(continued, scene.pbf, options.index_build)
             : make_cpu_pbf_simulation(continued, scene.pbf);
}

}  // namespace surge
