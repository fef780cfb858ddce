// The n-body solver on the GPU, in float; stepping copies nothing between host and device.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/backend/cuda_executor.cuh"
#include "sim/backend/gpu_capacity.h"
#include "sim/backend/nbody_simulation.h"
#include "sim/backend/solver_simulation.h"
#include "sim/core/gpu_info.h"
#include "sim/nbody/gpu_gravity.h"
#include "sim/nbody/nbody_solver.h"

namespace surge {

std::unique_ptr<Simulation> make_cuda_nbody_simulation(const NbodySetup& setup) {
  const DeviceDemand demand{.count = setup.size(),
                            .items = "bodies",
                            .per_item = device_bytes_per_body(setup.params.method),
                            .fixed = std::size_t(64) << 20};
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<SolverSimulation<CudaExecutor, NbodySolver<CudaExecutor, float>>>(
        std::forward_as_tuple(setup), std::forward_as_tuple(gpu));
  });
}

}  // namespace surge
