#include "sim/backend/cuda_executor.cuh"
#include "sim/backend/gpu_capacity.h"
#include "sim/backend/incompressible_capacity.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/solver_simulation.h"
#include "sim/sph/dfsph_solver.h"
#include "sim/sph/pbf_solver.h"

namespace surge {

namespace {

// The demand of `solver_bytes` a particle with the neighbour lists, or without them where the lists alone do
// not fit: the passes then walk the cells (as `--neighbor-lists off`), which holds about twice the particles.
// `neighbor_lists` is set to what was chosen; the backend's name then says "no neighbour lists", which the
// run's summary and the bench record print.
DeviceDemand incompressible_demand(const SphSetup& setup, std::size_t solver_bytes, bool& neighbor_lists) {
  const DeviceDemand without = sph_demand(setup, solver_bytes);
  if (!neighbor_lists) return without;
  const DeviceDemand with = sph_demand(setup, solver_bytes + neighbor_list_bytes_per_particle(setup.params));
  const std::optional<GpuInfo> gpu = query_gpu();
  if (gpu && with.bytes() > gpu->free_memory && without.bytes() <= gpu->free_memory) {
    neighbor_lists = false;
    return without;
  }
  return with;
}

}  // namespace

std::unique_ptr<Simulation> make_cuda_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                       IndexBuild index_build, bool neighbor_lists) {
  const DeviceDemand demand = incompressible_demand(setup, kDfsphExtraBytes, neighbor_lists);
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<SolverSimulation<CudaExecutor, DfsphSolver<CudaExecutor>>>(
        std::forward_as_tuple(setup, dfsph),
        std::forward_as_tuple(gpu, index_build, true, false, neighbor_lists));
  });
}

std::unique_ptr<Simulation> make_cuda_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                     IndexBuild index_build, bool neighbor_lists) {
  const DeviceDemand demand = incompressible_demand(setup, kPbfExtraBytes, neighbor_lists);
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<SolverSimulation<CudaExecutor, PbfSolver<CudaExecutor>>>(
        std::forward_as_tuple(setup, pbf),
        std::forward_as_tuple(gpu, index_build, true, false, neighbor_lists));
  });
}

}  // namespace surge
