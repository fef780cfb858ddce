// The GPU-resident backend of WCSPH: SolverSimulation over the CUDA executor. Everything stays on the device:
// the time step is chosen by a one-thread pass from maxima the force pass reduces, and the emitter decides on
// the device, so stepping needs no copy to the host; status(), download() and the overlapped export are the
// only readbacks, and the ledger records them. GpuStepOptions' lesson switches: particles kept in creation
// order (the executor's, docs/lessons/3-memory-order.md) and the split force pass (the solver's,
// docs/lessons/4-divergence.md).
#include "sim/backend/cuda_executor.cuh"
#include "sim/backend/gpu_capacity.h"
#include "sim/backend/simulation.h"
#include "sim/backend/solver_simulation.h"
#include "sim/sph/wcsph_solver.h"

namespace surge {

std::size_t device_bytes_per_fluid_particle() {
  // FluidState: position, velocity and their reorder scratch (3 x 16), id and its scratch (8), density and
  // pressure (8); the solver's acceleration (12; XSPH's 12 more only where it is on, sph_demand); the cell
  // index's keys, sorted keys, identity and order (16) and CUB's sort scratch (8). The split force pass adds
  // its flag and list (8).
  return 3 * sizeof(Vec4f) + 2 * sizeof(std::uint32_t) + 2 * sizeof(float) + sizeof(Vec3f) +
         4 * sizeof(std::uint32_t) + 2 * sizeof(std::uint32_t);
}
std::size_t device_bytes_per_boundary_particle() {
  return sizeof(Vec4f);
}

std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup& setup, const GpuStepOptions& options) {
  const std::size_t split_bytes = options.force_pass == ForcePass::split ? 2 * sizeof(std::uint32_t) : 0;
  const DeviceDemand demand = sph_demand(setup, split_bytes);
  const GpuInfo gpu = gpu_with_room_for(demand);
  return allocate_for(demand, [&] {
    return std::make_unique<SolverSimulation<CudaExecutor, WcsphSolver<CudaExecutor>>>(
        std::forward_as_tuple(setup, options.force_pass),
        std::forward_as_tuple(gpu, options.index_build, options.reorder, options.cuda_graphs));
  });
}

std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup& setup, IndexBuild index_build) {
  return make_cuda_simulation(setup, GpuStepOptions{.index_build = index_build});
}

}  // namespace surge
