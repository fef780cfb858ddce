// Whether an SPH setup fits on the GPU, for every CUDA SPH backend (GPU-resident, hybrid, DFSPH, PBF).
#pragma once

#include <cstddef>

#include "sim/core/gpu_info.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// Device bytes a setup needs in the GPU-resident WCSPH backend: per-particle arrays, the cell table and CUB's
// sort scratch (about one more key and value per particle).
std::size_t required_device_bytes(const SphSetup& setup);

// The GPU that will run `setup`; throws std::runtime_error without one and CapacityError when the particles
// do not fit. `extra_bytes_per_particle` is what a backend needs beyond the GPU-resident WCSPH one.
GpuInfo gpu_for(const SphSetup& setup, std::size_t extra_bytes_per_particle = 0);

}  // namespace surge
