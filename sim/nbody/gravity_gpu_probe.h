// One gravity evaluation on the GPU, from host bodies to host accelerations: what the GPU tests compare
// with the CPU reference. The same kernels step the CUDA backend.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/vec.h"
#include "sim/nbody/gravity_physics.h"
#include "sim/nbody/nbody_parameters.h"

namespace surge {

struct GpuGravityProbe {
  std::vector<Vec4f> field;  // per body, in the given order: acceleration (xyz) and potential (w), with G
  std::uint64_t interactions = 0;  // pulls summed (all pairs: N^2)
};

// params.method picks the kernel; params.theta applies to barnes_hut. Throws std::runtime_error without CUDA.
GpuGravityProbe gpu_gravity(const std::vector<Body<float>>& bodies, const NbodyParameters& params,
                            bool with_potential);

}  // namespace surge
