// Whether a run fits on the GPU, for every CUDA backend (the SPH solvers, DEM, n-body): checked from the
// setup before anything is allocated, and reported the same way when an allocation runs out of memory anyway
// (another process took memory between the check and the allocation): a CapacityError that names how many
// particles fit in the memory free at that moment.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "sim/core/gpu_info.h"
#include "sim/core/step_status.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// What a run asks of device memory: `count` items ("fluid particles", "grains", "bodies") of `per_item`
// bytes each, plus `fixed` bytes (cells, walls, scratch, a margin).
struct DeviceDemand {
  std::size_t count = 0;
  const char* items = "fluid particles";
  std::size_t per_item = 0;
  std::size_t fixed = 0;
  std::size_t bytes() const { return count * per_item + fixed; }
};

// The GPU that will run `demand`; throws std::runtime_error without one and CapacityError when it does not
// fit in the free memory: "N fluid particles need X GiB of GPU memory; NAME has Y GiB free, enough for about
// M".
GpuInfo gpu_with_room_for(const DeviceDemand& demand);

// The CapacityError for an allocation that ran out of memory while making a run of `demand`, with the
// memory free now (the failed run's buffers are released by then).
CapacityError out_of_memory_error(const DeviceDemand& demand);

// Makes a simulation, turning an allocation that runs out of device memory into out_of_memory_error.
template <typename Make>
auto allocate_for(const DeviceDemand& demand, Make&& make) {
  try {
    return std::forward<Make>(make)();
  } catch (const DeviceOutOfMemory&) {
    throw out_of_memory_error(demand);
  }
}

// The demand of an SPH setup in the GPU-resident WCSPH backend: per-particle arrays, the cell table and CUB's
// sort scratch (about one more key and value per particle); `extra_bytes_per_particle` is what a backend
// needs beyond the GPU-resident WCSPH one.
DeviceDemand sph_demand(const SphSetup& setup, std::size_t extra_bytes_per_particle = 0);

// gpu_with_room_for(sph_demand(setup, extra_bytes_per_particle)).
GpuInfo gpu_for(const SphSetup& setup, std::size_t extra_bytes_per_particle = 0);

}  // namespace surge
