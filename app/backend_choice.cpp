#include "app/backend_choice.h"

#include <omp.h>

#include <cmath>
#include <stdexcept>

#include "app/cpu_threads.h"
#include "app/exit_codes.h"

namespace surge::app {
namespace {

std::string gpu_description(const GpuInfo& gpu) {
  const double gib = double(gpu.total_memory) / double(1ull << 30);
  return "gpu (" + gpu.name + ", CC " + std::to_string(gpu.compute_major) + "." +
         std::to_string(gpu.compute_minor) + ", " + std::to_string(std::lround(gib)) + " GiB)";
}

std::string cpu_description() {
  return "cpu (" + std::to_string(omp_get_max_threads()) + " threads)";
}

// The setting a user would change to ask for fewer particles, as "FILE:LINE: key 'KEY'".
std::string resolution_setting(const Scene& scene, long particles_override) {
  if (particles_override > 0) return scene.path.string() + ": option '--particles'";
  if (scene.solver == SolverKind::nbody) {
    const std::string key = "nbody.system[0].bodies";
    return scene.path.string() + ":" + std::to_string(scene.line_of(key)) + ": key '" + key + "'";
  }
  const std::string key = scene.target_particles > 0 ? "resolution.particles" : "resolution.spacing";
  return scene.path.string() + ":" + std::to_string(scene.line_of(key)) + ": key '" + key + "'";
}

BackendChoice make_gpu(const GpuInfo& gpu, const Scene& scene, const SimulationOptions& options,
                       ExecutionMode mode = ExecutionMode::gpu) {
  try {
    std::string description = gpu_description(gpu);
    if (mode != ExecutionMode::gpu)
      description = std::string(mode_name(mode)) + " (CPU index) on " + description;
    return {make_simulation(scene, mode, options), mode, description, gpu, ""};
  } catch (const CapacityError& e) {
    throw InputError(resolution_setting(scene, options.particles_override) + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
}

}  // namespace

std::optional<ExecutionMode> parse_backend_request(const std::string& name) {
  if (name == "cpu") return ExecutionMode::cpu;
  if (name == "gpu") return ExecutionMode::gpu;
  if (name == "auto") return std::nullopt;
  throw std::invalid_argument("unknown backend '" + name + "' (expected cpu, gpu or auto)");
}

BackendChoice choose_backend(std::optional<ExecutionMode> request, const Scene& scene,
                             const SimulationOptions& options) {
  if (request == ExecutionMode::cpu) {
    return {
        make_simulation(scene, ExecutionMode::cpu, options), ExecutionMode::cpu, cpu_description(), {}, ""};
  }

  std::string why_no_gpu;
  const std::optional<GpuInfo> gpu = query_gpu(&why_no_gpu);
  if (gpu) return make_gpu(*gpu, scene, options);
  if (request == ExecutionMode::gpu) throw InputError("--backend gpu: no CUDA GPU: " + why_no_gpu);
  return {make_simulation(scene, ExecutionMode::cpu, options),
          ExecutionMode::cpu,
          cpu_description(),
          {},
          why_no_gpu};
}

BackendChoice choose_mode(ExecutionMode mode, const Scene& scene, const SimulationOptions& options) {
  if (mode == ExecutionMode::cpu) return choose_backend(ExecutionMode::cpu, scene, options);
  std::string why_no_gpu;
  const std::optional<GpuInfo> gpu = query_gpu(&why_no_gpu);
  if (!gpu) throw InputError(std::string("--mode ") + mode_name(mode) + ": no CUDA GPU: " + why_no_gpu);
  return make_gpu(*gpu, scene, options, mode);
}

std::string describe_mode(ExecutionMode mode) {
  if (mode == ExecutionMode::cpu) return cpu_description();
  const std::optional<GpuInfo> gpu = query_gpu();
  const std::string where = gpu ? gpu_description(*gpu) : std::string("no GPU");
  switch (mode) {
    case ExecutionMode::hybrid:
      return "CPU index (" + std::to_string(omp_get_max_threads()) + " threads), synchronous copies, " +
             where;
    case ExecutionMode::hybrid_overlap:
      return "CPU index built ahead in a worker thread, pinned async copies, skin index, " + where;
    default:
      return where;
  }
}

std::vector<std::string> mode_names() {
  std::vector<std::string> names;
  for (ExecutionMode mode : kExecutionModes) names.emplace_back(mode_name(mode));
  return names;
}

std::string backend_line(const BackendChoice& choice) {
  // The CPU's line says where its thread count came from and how the threads wait.
  std::string line = "backend: " + (choice.mode == ExecutionMode::cpu ? "cpu (" + cpu_threads_text() + ")"
                                                                      : choice.description);
  if (!choice.why_no_gpu.empty()) line += " — no CUDA GPU: " + choice.why_no_gpu;
  return line;
}

}  // namespace surge::app
