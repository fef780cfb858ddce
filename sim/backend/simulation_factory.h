// One entry point from a scene to a running simulation: the scene's `solver` picks the physics, the
// execution mode (sim/backend/execution_mode.h) picks the executor. A table of {solver, mode} -> maker or
// reason (simulation_factory.cpp) decides what exists; the app and the tests go through here, so a new
// solver or mode is a row or a column there.
// Every simulation made here publishes its static fields (Simulation::static_fields): the fluid solvers their
// walls as kBoundaryField, DEM and n-body none.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/backend/execution_mode.h"
#include "sim/backend/simulation.h"
#include "sim/index/index_build.h"
#include "sim/scene/scene.h"

namespace surge {

struct SimulationOptions {
  long particles_override = 0;  // > 0 replaces the scene's resolution by a target particle count
  IndexBuild index_build = IndexBuild::radix_sort;  // GPU cell index build
  // Classroom switches (docs/lessons/): the gpu mode's memory-order and divergence lessons, and the skin
  // of hybrid-overlap as a fraction of the kernel support.
  bool reorder = true;
  ForcePass force_pass = ForcePass::single;
  float skin_ratio = 0.25f;
  bool cuda_graphs = false;    // gpu mode: steps as CUDA graphs (GpuStepOptions::cuda_graphs)
  bool neighbor_lists = true;  // gpu mode: DFSPH and PBF read per-step neighbour lists (false: cell walks)
};

// Throws SceneError for a scene that yields no particles, CapacityError when they do not fit on the GPU,
// std::runtime_error when the build has no CUDA backend or no GPU is present (a mode other than cpu), and
// std::invalid_argument naming the reason when the solver lacks the mode (why_solver_lacks_mode).
std::unique_ptr<Simulation> make_simulation(const Scene& scene, ExecutionMode mode,
                                            const SimulationOptions& options = {});

// The solvers of the table, in its order, for `surge modes` (the loader accepts exactly these).
std::vector<SolverKind> solvers_with_modes();

// A WCSPH simulation of `setup` in `mode`; setup.fluid's time_s and step are where it starts.
std::unique_ptr<Simulation> make_wcsph_simulation(const SphSetup& setup, ExecutionMode mode,
                                                  const SimulationOptions& options = {});

// The viewer's live mode switch (the Lessons panel): downloads the particles of `running` (a WCSPH run
// made from `setup`) and continues them, at the same simulated time and step, in `mode`. The caller
// replaces its simulation with the result; `running` is left as it was. setup gives what a frame does
// not hold: the parameters, the grid and the walls.
std::unique_ptr<Simulation> switch_execution_mode(Simulation& running, const SphSetup& setup,
                                                  ExecutionMode mode, const SimulationOptions& options = {});

// The same for any scene, in any mode its solver has (the table): fluids continue from their particles
// (DFSPH's warm start begins again from zero, which costs a few iterations in the first steps), grains with
// their spin and contact history, bodies in float. A mode the solver lacks is std::invalid_argument, and
// `running` is left as it was.
std::unique_ptr<Simulation> switch_execution_mode(Simulation& running, const Scene& scene, ExecutionMode mode,
                                                  const SimulationOptions& options = {});

// `setup` with its fluid replaced by `frame` (positions, velocities, ids, time and step).
SphSetup continue_from(const SphSetup& setup, const ParticleFrame& frame);

}  // namespace surge
