#include "sim/backend/simulation_factory.h"

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "sim/backend/dem_simulation.h"
#include "sim/backend/hybrid_simulation.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/nbody_simulation.h"
#include "sim/nbody/nbody_setup.h"
#include "sim/setup/build_dem_setup.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/setup/build_nbody_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

// Every fluid simulation leaves the factory with its walls and its solids' surfaces published
// (Simulation::static_fields, solid_surfaces), so neither the backends nor the viewer need to rebuild them.
std::unique_ptr<Simulation> with_walls(std::unique_ptr<Simulation> simulation, const SphSetup& setup) {
  simulation->publish_static_field({std::string(kBoundaryField), setup.boundary});
  std::vector<SolidSurface> surfaces;
  for (const SolidBodySetup& body : setup.solids.bodies)
    surfaces.push_back({body.name, body.surface, {body.initial.center, body.initial.orientation}});
  simulation->publish_solid_surfaces(std::move(surfaces));
  return simulation;
}

// ---- Where a run starts: the scene's initial state or, for a live mode switch, the state of `running` (a
// simulation of the same scene), downloaded.

// The host memory a mode needs beyond the setup, per fluid particle (the GPU's own is checked by gpu_for).
double run_host_bytes_per_particle(ExecutionMode mode) {
  switch (mode) {
    case ExecutionMode::cpu:
      return kCpuRunBytesPerFluidParticle;
    case ExecutionMode::hybrid:
    case ExecutionMode::hybrid_overlap:
      return kHybridRunBytesPerFluidParticle;
    case ExecutionMode::gpu:
      return 0;
  }
  return 0;
}

SphSetup fluid_setup(ExecutionMode mode, const Scene& scene, const SimulationOptions& options,
                     Simulation* running) {
  const SphSetup setup = build_setup(scene, options.particles_override, run_host_bytes_per_particle(mode));
  if (running == nullptr) return setup;
  ParticleFrame frame;
  running->download(frame);
  return continue_from(setup, frame);
}

// Grains carry their spin and contact history over, so the continued run is the same run.
DemSetup grain_setup(const Scene& scene, const SimulationOptions& options, Simulation* running) {
  DemSetup setup = build_dem_setup(scene, options.particles_override);
  if (running == nullptr) return setup;
  auto* grains = dynamic_cast<DemSimulation*>(running);
  if (grains == nullptr) throw std::logic_error("switch_execution_mode: a dem scene without a DemSimulation");
  running->download(setup.grains);
  if (setup.params.rotation) grains->download_angular_velocity(setup.angular_velocity);
  if (setup.params.friction_model == FrictionModel::mindlin) grains->download_contact_history(setup.history);
  return setup;
}

// Bodies by creation id; a frame holds them in float, the GPU's precision (the CPU runs in double).
NbodySetup body_setup(const Scene& scene, const SimulationOptions& options, Simulation* running) {
  NbodySetup setup = build_nbody_setup(scene, options.particles_override);
  if (running == nullptr) return setup;
  ParticleFrame frame;
  running->download(frame);
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
  return setup;
}

HybridOptions hybrid_options(ExecutionMode mode, const SimulationOptions& options) {
  return {.overlap = mode == ExecutionMode::hybrid_overlap, .skin_ratio = options.skin_ratio};
}

// ---- The makers: one per solver, for the modes its row of the table lists.

using Maker = std::unique_ptr<Simulation> (*)(ExecutionMode, const Scene&, const SimulationOptions&,
                                              Simulation* running);

std::unique_ptr<Simulation> wcsph(ExecutionMode mode, const Scene& scene, const SimulationOptions& options,
                                  Simulation* running) {
  return make_wcsph_simulation(fluid_setup(mode, scene, options, running), mode, options);
}

std::unique_ptr<Simulation> dfsph(ExecutionMode mode, const Scene& scene, const SimulationOptions& options,
                                  Simulation* running) {
  const SphSetup setup = fluid_setup(mode, scene, options, running);
  switch (mode) {
    case ExecutionMode::cpu:
      return with_walls(make_cpu_dfsph_simulation(setup, scene.dfsph), setup);
    case ExecutionMode::gpu:
      return with_walls(
          make_cuda_dfsph_simulation(setup, scene.dfsph, options.index_build, options.neighbor_lists), setup);
    case ExecutionMode::hybrid:
    case ExecutionMode::hybrid_overlap:
      return with_walls(make_hybrid_dfsph_simulation(setup, scene.dfsph, hybrid_options(mode, options)),
                        setup);
  }
  throw std::logic_error("dfsph: unknown mode");
}

std::unique_ptr<Simulation> pbf(ExecutionMode mode, const Scene& scene, const SimulationOptions& options,
                                Simulation* running) {
  const SphSetup setup = fluid_setup(mode, scene, options, running);
  switch (mode) {
    case ExecutionMode::cpu:
      return with_walls(make_cpu_pbf_simulation(setup, scene.pbf), setup);
    case ExecutionMode::gpu:
      return with_walls(
          make_cuda_pbf_simulation(setup, scene.pbf, options.index_build, options.neighbor_lists), setup);
    case ExecutionMode::hybrid:
    case ExecutionMode::hybrid_overlap:
      return with_walls(make_hybrid_pbf_simulation(setup, scene.pbf, hybrid_options(mode, options)), setup);
  }
  throw std::logic_error("pbf: unknown mode");
}

std::unique_ptr<Simulation> dem(ExecutionMode mode, const Scene& scene, const SimulationOptions& options,
                                Simulation* running) {
  const DemSetup setup = grain_setup(scene, options, running);
  if (mode == ExecutionMode::cpu) return make_dem_cpu_simulation(setup);
  if (mode == ExecutionMode::hybrid) return make_dem_hybrid_simulation(setup);
  return make_dem_cuda_simulation(setup, options.index_build);
}

std::unique_ptr<Simulation> nbody(ExecutionMode mode, const Scene& scene, const SimulationOptions& options,
                                  Simulation* running) {
  const NbodySetup setup = body_setup(scene, options, running);
  return mode == ExecutionMode::gpu ? make_cuda_nbody_simulation(setup) : make_cpu_nbody_simulation(setup);
}

// ---- The table: {solver, mode} -> maker or reason.

struct ModeCell {
  Maker make = nullptr;
  std::string_view why_not;  // when make is null
};
constexpr ModeCell runs(Maker make) {
  return {make, {}};
}
constexpr ModeCell lacks(std::string_view why_not) {
  return {nullptr, why_not};
}

using SolverKey = SolverKind;
std::string key_name(SolverKey solver) {
  return std::string(solver_name(solver));
}

struct SolverModes {
  SolverKey solver;
  std::array<ModeCell, kExecutionModes.size()> modes;  // in the order of kExecutionModes
};

constexpr std::string_view kNoCellIndex =
    "n-body gravity has no cell index for the CPU to build (it sums all pairs or walks a Barnes-Hut tree)";
constexpr std::string_view kDemWithoutSkin =
    "the dem solver's hybrid mode builds its CPU index every step; its contact history has no skin schedule "
    "yet";

// clang-format off
constexpr std::array<SolverModes, 5> kModeTable = {{
    //          cpu          hybrid               hybrid-overlap          gpu
    {SolverKind::wcsph, {runs(wcsph), runs(wcsph),         runs(wcsph),            runs(wcsph)}},
    {SolverKind::dfsph, {runs(dfsph), runs(dfsph),         runs(dfsph),            runs(dfsph)}},
    {SolverKind::pbf,   {runs(pbf),   runs(pbf),           runs(pbf),              runs(pbf)}},
    {SolverKind::dem,   {runs(dem),   runs(dem),           lacks(kDemWithoutSkin), runs(dem)}},
    {SolverKind::nbody, {runs(nbody), lacks(kNoCellIndex), lacks(kNoCellIndex),    runs(nbody)}},
}};
// clang-format on

const ModeCell& cell(SolverKey solver, ExecutionMode mode) {
  for (const SolverModes& row : kModeTable)
    if (row.solver == solver) return row.modes[std::size_t(mode)];
  // The loader accepts only solvers listed here; reaching this is a bug, not bad input.
  throw std::logic_error("simulation factory: no row for solver '" + key_name(solver) + "'");
}

// The cell's maker, or std::invalid_argument with its reason (`doing` says what was asked).
Maker maker_or_throw(SolverKey solver, ExecutionMode mode, const std::string& doing) {
  const ModeCell& c = cell(solver, mode);
  if (c.make == nullptr)
    throw std::invalid_argument(doing + std::string(mode_name(mode)) + ": " + std::string(c.why_not));
  return c.make;
}

}  // namespace

std::string why_solver_lacks_mode(SolverKind solver, ExecutionMode mode) {
  return std::string(cell(solver, mode).why_not);
}

std::vector<SolverKind> solvers_with_modes() {
  std::vector<SolverKind> solvers;
  for (const SolverModes& row : kModeTable) solvers.push_back(row.solver);
  return solvers;
}

std::unique_ptr<Simulation> make_simulation(const Scene& scene, ExecutionMode mode,
                                            const SimulationOptions& options) {
  return maker_or_throw(scene.solver, mode, "mode ")(mode, scene, options, nullptr);
}

std::unique_ptr<Simulation> make_wcsph_simulation(const SphSetup& setup, ExecutionMode mode,
                                                  const SimulationOptions& options) {
  switch (mode) {
    case ExecutionMode::cpu:
      return with_walls(make_cpu_simulation(setup), setup);
    case ExecutionMode::hybrid:
    case ExecutionMode::hybrid_overlap:
      // WCSPH's hybrid backend rebuilds the index on the host from a fixed particle count; an emitter's
      // growing count would need the host to know it every step, which is what its gpu mode avoids.
      if (setup.emitter.present)
        throw std::invalid_argument(
            std::string("mode ") + mode_name(mode) +
            " does not run wcsph scenes with an [[emitter]]; use the cpu or gpu mode");
      return with_walls(make_hybrid_simulation(setup, hybrid_options(mode, options)), setup);
    case ExecutionMode::gpu:
      return with_walls(make_cuda_simulation(setup, GpuStepOptions{.index_build = options.index_build,
                                                                   .reorder = options.reorder,
                                                                   .force_pass = options.force_pass,
                                                                   .cuda_graphs = options.cuda_graphs}),
                        setup);
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
  return maker_or_throw(scene.solver, mode, "cannot switch to mode ")(mode, scene, options, &running);
}

}  // namespace surge
