#include <cstdio>

#include "sim/backend/cuda_executor.cuh"
#include "sim/backend/gpu_capacity.h"
#include "sim/backend/incompressible_capacity.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/solver_simulation.h"
#include "sim/sph/dfsph_solver.h"
#include "sim/sph/pbf_solver.h"

namespace surge {

namespace {

std::size_t list_bytes(const SphSetup& setup, bool neighbor_lists) {
  return neighbor_lists ? neighbor_list_bytes_per_particle(setup.params) : 0;
}

}  // namespace

std::unique_ptr<Simulation> make_cuda_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                       IndexBuild index_build, bool neighbor_lists) {
  const DeviceDemand demand = sph_demand(setup, kDfsphExtraBytes + list_bytes(setup, neighbor_lists));
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<SolverSimulation<CudaExecutor, DfsphSolver<CudaExecutor>>>(
        std::forward_as_tuple(setup, dfsph),
        std::forward_as_tuple(gpu, index_build, true, false, neighbor_lists));
  });
}

std::unique_ptr<Simulation> make_cuda_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                     IndexBuild index_build, bool neighbor_lists) {
  const DeviceDemand demand = sph_demand(setup, kPbfExtraBytes + list_bytes(setup, neighbor_lists));
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<SolverSimulation<CudaExecutor, PbfSolver<CudaExecutor>>>(
        std::forward_as_tuple(setup, pbf),
        std::forward_as_tuple(gpu, index_build, true, false, neighbor_lists));
  });
}

}  // namespace surge
