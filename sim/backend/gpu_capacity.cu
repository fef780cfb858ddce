#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/backend/gpu_capacity.h"
#include "sim/backend/simulation.h"

namespace surge {

std::size_t required_device_bytes(const SphSetup& setup) {
  const std::size_t n = setup.capacity();  // the emitter's particles are allocated up front
  const std::size_t cells = std::size_t(setup.grid.cell_count()) + 1;
  return n * device_bytes_per_fluid_particle() +
         setup.boundary.size() * device_bytes_per_boundary_particle() + cells * sizeof(std::uint32_t) * 2 +
         (std::size_t(64) << 20);
}

GpuInfo gpu_for(const SphSetup& setup, std::size_t extra_bytes_per_particle) {
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  if (!gpu) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::size_t per_particle = device_bytes_per_fluid_particle() + extra_bytes_per_particle;
  const std::size_t needed = required_device_bytes(setup) + setup.capacity() * extra_bytes_per_particle;
  if (needed > gpu->free_memory) {
    const std::size_t fixed = needed - setup.capacity() * per_particle;
    const std::size_t fit = gpu->free_memory > fixed ? (gpu->free_memory - fixed) / per_particle : 0;
    char text[256];
    std::snprintf(
        text, sizeof text,
        "%zu fluid particles need %.2f GiB of GPU memory; %s has %.2f GiB free, enough for about %zu",
        setup.capacity(), double(needed) / double(1ull << 30), gpu->name.c_str(),
        double(gpu->free_memory) / double(1ull << 30), fit);
    throw CapacityError(text, setup.capacity(), fit);
  }
  return *gpu;
}

}  // namespace surge
