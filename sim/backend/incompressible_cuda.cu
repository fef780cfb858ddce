#include <cstdio>

#include "sim/backend/cuda_executor.cuh"
#include "sim/backend/incompressible_simulation.h"
#include "sim/sph/dfsph_solver.h"
#include "sim/sph/pbf_solver.h"

namespace surge {

namespace {

// The per-particle arrays of the solvers beyond the shared ones, for the capacity check.
constexpr std::size_t kDfsphExtraBytes = sizeof(DfsphFactor) + 4 * sizeof(float) + sizeof(Vec4f);
constexpr std::size_t kPbfExtraBytes = 3 * sizeof(Vec4f) + 3 * sizeof(float) + sizeof(Vec3f);

GpuInfo gpu_with_room_for(const SphSetup& setup, std::size_t extra_bytes_per_particle) {
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  if (!gpu) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::size_t per_particle = device_bytes_per_fluid_particle() + extra_bytes_per_particle;
  const std::size_t fixed = setup.boundary.size() * device_bytes_per_boundary_particle() +
                            (std::size_t(setup.grid.cell_count()) + 1) * 2 * sizeof(std::uint32_t) +
                            (std::size_t(64) << 20);
  const std::size_t needed = fixed + setup.fluid.size() * per_particle;
  if (needed > gpu->free_memory) {
    const std::size_t fit = gpu->free_memory > fixed ? (gpu->free_memory - fixed) / per_particle : 0;
    char text[256];
    std::snprintf(
        text, sizeof text,
        "%zu fluid particles need %.2f GiB of GPU memory; %s has %.2f GiB free, enough for about %zu",
        setup.fluid.size(), double(needed) / double(1ull << 30), gpu->name.c_str(),
        double(gpu->free_memory) / double(1ull << 30), fit);
    throw CapacityError(text, setup.fluid.size(), fit);
  }
  return *gpu;
}

}  // namespace

std::unique_ptr<Simulation> make_cuda_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                       IndexBuild index_build) {
  const GpuInfo gpu = gpu_with_room_for(setup, kDfsphExtraBytes);
  return std::make_unique<IncompressibleSimulation<CudaExecutor, DfsphSolver>>(setup, dfsph, gpu,
                                                                               index_build);
}

std::unique_ptr<Simulation> make_cuda_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                     IndexBuild index_build) {
  const GpuInfo gpu = gpu_with_room_for(setup, kPbfExtraBytes);
  return std::make_unique<IncompressibleSimulation<CudaExecutor, PbfSolver>>(setup, pbf, gpu, index_build);
}

}  // namespace surge
