// The n-body solver on the GPU, in float; stepping copies nothing between host and device.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/backend/cuda_executor.cuh"
#include "sim/backend/nbody_simulation.h"
#include "sim/backend/solver_simulation.h"
#include "sim/core/gpu_info.h"
#include "sim/nbody/gpu_gravity.h"
#include "sim/nbody/nbody_solver.h"

namespace surge {

std::unique_ptr<Simulation> make_cuda_nbody_simulation(const NbodySetup& setup) {
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  if (!gpu) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::size_t n = setup.size();
  const std::size_t fixed = std::size_t(64) << 20;
  const std::size_t needed = n * device_bytes_per_body(setup.params.method) + fixed;
  if (needed > gpu->free_memory) {
    const std::size_t fit = gpu->free_memory > fixed
                                ? (gpu->free_memory - fixed) / device_bytes_per_body(setup.params.method)
                                : 0;
    char text[256];
    std::snprintf(text, sizeof text,
                  "%zu bodies need %.2f GiB of GPU memory; %s has %.2f GiB free, enough for about %zu", n,
                  double(needed) / double(1ull << 30), gpu->name.c_str(),
                  double(gpu->free_memory) / double(1ull << 30), fit);
    throw CapacityError(text, n, fit);
  }
  return std::make_unique<SolverSimulation<CudaExecutor, NbodySolver<CudaExecutor, float>>>(
      std::forward_as_tuple(setup), std::forward_as_tuple(*gpu));
}

}  // namespace surge
