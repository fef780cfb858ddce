// Which backend steps a run: the user's --backend, resolved against the GPU that is (or is not) there.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "sim/backend/simulation_factory.h"
#include "sim/core/gpu_info.h"
#include "sim/scene/scene.h"

namespace surge::app {

// --backend: cpu or gpu, an ExecutionMode, or auto (nullopt), which choose_backend resolves to one.
inline const std::vector<std::string> kBackendNames = {"cpu", "gpu", "auto"};
std::optional<ExecutionMode> parse_backend_request(const std::string& name);

struct BackendChoice {
  std::unique_ptr<Simulation> simulation;
  ExecutionMode mode;          // what runs it; mode_name(mode) in tables and JSON
  std::string description;     // "gpu (NVIDIA H200, CC 9.0, 140 GiB)", "cpu (2 threads)"
  std::optional<GpuInfo> gpu;  // the GPU that runs it, if one does
  std::string why_no_gpu;      // set when `auto` fell back to the CPU
};

inline const std::vector<std::string> kSolverNames = {"wcsph", "dfsph", "pbf"};

// --solver replaces the scene's solver; the scene's settings for that solver ([dfsph], [pbf]) still apply.
// The fluid solvers read the same tables; a granular scene (solver = "dem") has none of them.
inline void apply_solver_override(Scene& scene, const std::string& solver) {
  if (solver.empty()) return;
  // CLI11 has checked the name against kSolverNames.
  const SolverKind kind = *parse_solver_kind(solver);
  if (scene.solver == SolverKind::dem && kind != SolverKind::dem)
    throw InputError("--solver " + solver + ": " + scene.path.string() +
                     " is a granular scene (solver = \"dem\"); it has no fluid for a fluid solver");
  scene.solver = kind;
  check_gauges_for_solver(scene);  // a pressure gauge cannot follow the scene to PBF
}

// --density replaces a WCSPH scene's density: "summation" (Akinci et al. 2012) or "continuity" (the
// continuity equation with delta-SPH diffusion: the scene's density_diffusion, else its default 0.1).
// Continuity density needs one neighbour pass a step where summation needs two. DFSPH and PBF solve for their
// density: for them the option is an error, not something to ignore.
inline const std::vector<std::string> kDensityNames = {"summation", "continuity"};
inline void apply_density_override(Scene& scene, const std::string& density) {
  if (density.empty()) return;
  if (scene.solver != SolverKind::wcsph)
    throw InputError("--density " + density + ": applies to WCSPH; this run's solver is \"" +
                     std::string(solver_name(scene.solver)) + "\", which computes its density its own way");
  // CLI11 has checked the name against kDensityNames.
  scene.continuity_density = density == "continuity";
}

// "backend: cpu (2 threads) — no CUDA GPU: REASON", the line a run starts with.
std::string backend_line(const BackendChoice& choice);

// Makes the simulation for `scene`. Throws InputError when a GPU is required and absent, or when the
// particles do not fit in device memory; the latter names the scene key (or --particles) to change.
BackendChoice choose_backend(std::optional<ExecutionMode> request, const Scene& scene,
                             const SimulationOptions& options);

// The same for an execution mode (`--mode`): cpu is --backend cpu, gpu is --backend gpu; the hybrid modes
// need a GPU too.
BackendChoice choose_mode(ExecutionMode mode, const Scene& scene, const SimulationOptions& options);

// "cpu (2 threads)", "CPU index + gpu (NVIDIA H200, ...)": what runs a mode here. Needs no simulation.
std::string describe_mode(ExecutionMode mode);

// The names --mode accepts, in the order benchmarks run them.
std::vector<std::string> mode_names();

}  // namespace surge::app
