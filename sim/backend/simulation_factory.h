// One entry point from a scene to a running simulation: the scene's `solver` picks the physics,
// the device picks the backend. The app and the tests go through here, so a new solver is added in one place.
// Every simulation made here publishes its static fields (Simulation::static_fields): the fluid solvers their
// walls as kBoundaryField, DEM and n-body none.
#pragma once

#include <memory>
#include <string>

#include "sim/backend/execution_mode.h"
#include "sim/backend/simulation.h"
#include "sim/index/index_build.h"
#include "sim/scene/scene.h"

namespace surge {

enum class Device { cpu, gpu };

struct SimulationOptions {
  long particles_override = 0;  // > 0 replaces the scene's resolution by a target particle count
  IndexBuild index_build = IndexBuild::radix_sort;  // GPU cell index build
  // Classroom switches (docs/lessons/): the gpu mode's memory-order and divergence lessons, and the skin
  // of hybrid-overlap as a fraction of the kernel support.
  bool reorder = true;
  ForcePass force_pass = ForcePass::single;
  float skin_ratio = 0.25f;
};

// Throws SceneError for a scene that yields no particles, CapacityError when they do not fit on the GPU,
// and std::runtime_error when the build has no CUDA backend or no GPU is present.
std::unique_ptr<Simulation> make_simulation(const Scene& scene, Device device,
                                            const SimulationOptions& options = {});

// The same for one of the classroom's execution modes (sim/backend/execution_mode.h). hybrid exists for
// wcsph and dem, hybrid-overlap for wcsph (why_solver_lacks_mode); another pairing is std::invalid_argument.
std::unique_ptr<Simulation> make_simulation(const Scene& scene, ExecutionMode mode,
                                            const SimulationOptions& options = {});

// A WCSPH simulation of `setup` in `mode`; setup.fluid's time_s and step are where it starts.
std::unique_ptr<Simulation> make_wcsph_simulation(const SphSetup& setup, ExecutionMode mode,
                                                  const SimulationOptions& options = {});

// The viewer's live mode switch (the Lessons panel): downloads the particles of `running` (a WCSPH run
// made from `setup`) and continues them, at the same simulated time and step, in `mode`. The caller
// replaces its simulation with the result; `running` is left as it was. setup gives what a frame does
// not hold: the parameters, the grid and the walls.
std::unique_ptr<Simulation> switch_execution_mode(Simulation& running, const SphSetup& setup,
                                                  ExecutionMode mode, const SimulationOptions& options = {});

// The same for any fluid scene: wcsph in every mode, dfsph and pbf between cpu and gpu (their state is the
// particles; DFSPH's warm start begins again from zero, which costs a few iterations in the first steps).
// Another solver or mode is std::invalid_argument, and `running` is left as it was.
std::unique_ptr<Simulation> switch_execution_mode(Simulation& running, const Scene& scene, ExecutionMode mode,
                                                  const SimulationOptions& options = {});

// `setup` with its fluid replaced by `frame` (positions, velocities, ids, time and step).
SphSetup continue_from(const SphSetup& setup, const ParticleFrame& frame);

}  // namespace surge
