// Built instead of the n-body CUDA sources when nvcc is absent: the GPU gravity passes say why they are
// missing.
#include <stdexcept>

#include "sim/nbody/gravity_gpu_probe.h"

namespace surge {

std::size_t device_bytes_per_body(NbodyMethod) {
  return 0;
}

GpuGravityProbe gpu_gravity(const std::vector<Body<float>>&, const NbodyParameters&, bool) {
  throw std::runtime_error("built without CUDA");
}

}  // namespace surge
