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
#include "sim/backend/gpu_capacity.h"
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

// What the grains ask of the GPU (sim/backend/gpu_capacity.h).
DeviceDemand grain_demand(const DemSetup& setup) {
  const std::size_t cells = std::size_t(setup.grid.cell_count()) + 1;
  return {.count = setup.grains.size(),
          .items = "grains",
          .per_item = device_bytes_per_grain(setup.params),
          .fixed = setup.fixed.size() * sizeof(Vec4f) + cells * sizeof(std::uint32_t) * 2 +
                   (std::size_t(64) << 20)};
}

}  // namespace

std::unique_ptr<DemSimulation> make_dem_cuda_simulation(const DemSetup& setup, IndexBuild index_build) {
  const DeviceDemand demand = grain_demand(setup);
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<DemSolverSimulation<CudaExecutor>>(std::forward_as_tuple(setup),
                                                               std::forward_as_tuple(gpu, index_build));
  });
}

std::unique_ptr<DemSimulation> make_dem_hybrid_simulation(const DemSetup& setup) {
  const DeviceDemand demand = grain_demand(setup);
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<DemSolverSimulation<HybridExecutor>>(std::forward_as_tuple(setup),
                                                                 std::forward_as_tuple(gpu));
  });
}

}  // namespace surge
