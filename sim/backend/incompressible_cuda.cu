#include <cstdio>

#include "sim/backend/cuda_executor.cuh"
#include "sim/backend/gpu_capacity.h"
#include "sim/backend/incompressible_capacity.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/solver_simulation.h"
#include "sim/sph/dfsph_solver.h"
#include "sim/sph/pbf_solver.h"

namespace surge {

std::unique_ptr<Simulation> make_cuda_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                       IndexBuild index_build) {
  const DeviceDemand demand = sph_demand(setup, kDfsphExtraBytes);
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<SolverSimulation<CudaExecutor, DfsphSolver<CudaExecutor>>>(
        std::forward_as_tuple(setup, dfsph), std::forward_as_tuple(gpu, index_build));
  });
}

std::unique_ptr<Simulation> make_cuda_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                     IndexBuild index_build) {
  const DeviceDemand demand = sph_demand(setup, kPbfExtraBytes);
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<SolverSimulation<CudaExecutor, PbfSolver<CudaExecutor>>>(
        std::forward_as_tuple(setup, pbf), std::forward_as_tuple(gpu, index_build));
  });
}

}  // namespace surge
