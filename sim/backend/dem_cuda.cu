// The granular solver on the GPU: DemSolver's step in CudaExecutor's kernels, and the classroom's hybrid
// mode, the same step on HybridExecutor, which builds the cell index on the CPU (hybrid_executor.cuh).
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "sim/backend/cuda_executor.cuh"
#include "sim/backend/dem_solver_simulation.h"
#include "sim/backend/hybrid_executor.cuh"

namespace surge {

std::size_t device_bytes_per_grain() {
  // position + velocity double-buffered for the reorder (4 x 16), acceleration (16), id double-buffered
  // (8), cell keys, sorted keys, identity, order (16), CUB scratch (8).
  return 5 * sizeof(Vec4f) + 2 * sizeof(std::uint32_t) + 4 * sizeof(std::uint32_t) +
         2 * sizeof(std::uint32_t);
}

namespace {

// Extra bytes of device memory per moving grain for the spin (angular velocity double-buffered for the
// reorder, angular acceleration) and the contact history (two buffers of contact_slots slots).
std::size_t device_bytes_per_grain(const DemParameters& params) {
  std::size_t bytes = surge::device_bytes_per_grain();
  if (params.rotation) bytes += 3 * sizeof(Vec4f);
  if (params.friction_model == FrictionModel::mindlin)
    bytes += 2 * std::size_t(params.contact_slots) * sizeof(ContactSlot);
  return bytes;
}

// The GPU the grains run on; throws when there is none, and CapacityError when they do not fit.
GpuInfo gpu_for_grains(const DemSetup& setup) {
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  if (!gpu) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::size_t cells = std::size_t(setup.grid.cell_count()) + 1;
  const std::size_t fixed_bytes =
      (setup.fixed.size() * sizeof(Vec4f)) + cells * sizeof(std::uint32_t) * 2 + (std::size_t(64) << 20);
  const std::size_t per_grain = device_bytes_per_grain(setup.params);
  const std::size_t needed = setup.grains.size() * per_grain + fixed_bytes;
  if (needed > gpu->free_memory) {
    const std::size_t fit = gpu->free_memory > fixed_bytes ? (gpu->free_memory - fixed_bytes) / per_grain : 0;
    char text[256];
    std::snprintf(text, sizeof text,
                  "%zu grains need %.2f GiB of GPU memory; %s has %.2f GiB free, enough for about %zu",
                  setup.grains.size(), double(needed) / double(1ull << 30), gpu->name.c_str(),
                  double(gpu->free_memory) / double(1ull << 30), fit);
    throw CapacityError(text, setup.grains.size(), fit);
  }
  return *gpu;
}

}  // namespace

std::unique_ptr<DemSimulation> make_dem_cuda_simulation(const DemSetup& setup, IndexBuild index_build) {
  const GpuInfo gpu = gpu_for_grains(setup);
  return std::make_unique<DemSolverSimulation<CudaExecutor>>(std::forward_as_tuple(setup),
                                                             std::forward_as_tuple(gpu, index_build));
}

std::unique_ptr<DemSimulation> make_dem_hybrid_simulation(const DemSetup& setup) {
  const GpuInfo gpu = gpu_for_grains(setup);
  return std::make_unique<DemSolverSimulation<HybridExecutor>>(std::forward_as_tuple(setup),
                                                               std::forward_as_tuple(gpu));
}

}  // namespace surge
