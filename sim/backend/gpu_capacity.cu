#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/backend/gpu_capacity.h"
#include "sim/backend/simulation.h"

namespace surge {
namespace {

CapacityError capacity_error(const DeviceDemand& demand, const char* name, std::size_t free_bytes,
                             const char* what_happened) {
  const std::size_t fit =
      free_bytes > demand.fixed && demand.per_item > 0 ? (free_bytes - demand.fixed) / demand.per_item : 0;
  char text[320];
  std::snprintf(text, sizeof text,
                "%zu %s %s %.2f GiB of GPU memory; %s has %.2f GiB free, enough for about %zu", demand.count,
                demand.items, what_happened, double(demand.bytes()) / double(1ull << 30), name,
                double(free_bytes) / double(1ull << 30), fit);
  return CapacityError(text, demand.count, fit);
}

}  // namespace

GpuInfo gpu_with_room_for(const DeviceDemand& demand) {
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  if (!gpu) throw std::runtime_error("no CUDA GPU: " + why_not);
  if (demand.bytes() > gpu->free_memory)
    throw capacity_error(demand, gpu->name.c_str(), gpu->free_memory, "need");
  return *gpu;
}

CapacityError out_of_memory_error(const DeviceDemand& demand) {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) free_bytes = 0;
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  return capacity_error(demand, gpu ? gpu->name.c_str() : "the GPU", free_bytes,
                        "ran out of memory while allocating their");
}

DeviceDemand sph_demand(const SphSetup& setup, std::size_t extra_bytes_per_particle) {
  const std::size_t cells = std::size_t(setup.grid.cell_count()) + 1;
  // The emitter's particles are allocated up front.
  return {.count = setup.capacity(),
          .items = "fluid particles",
          .per_item = device_bytes_per_fluid_particle() + extra_bytes_per_particle +
                      (setup.params.xsph_epsilon != 0.0f ? sizeof(Vec3f) : 0),
          .fixed = setup.boundary.size() * device_bytes_per_boundary_particle() +
                   cells * sizeof(std::uint32_t) * 2 + (std::size_t(64) << 20)};
}

GpuInfo gpu_for(const SphSetup& setup, std::size_t extra_bytes_per_particle) {
  return gpu_with_room_for(sph_demand(setup, extra_bytes_per_particle));
}

}  // namespace surge
