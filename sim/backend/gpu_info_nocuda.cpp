// Built instead of the CUDA sources when nvcc is absent: the GPU backend reports why it is missing.
#include <stdexcept>

#include "sim/backend/gpu_info.h"
#include "sim/backend/simulation.h"

namespace surge {

std::string GpuInfo::driver_string() const { return "none"; }

std::optional<GpuInfo> query_gpu(std::string* why_not) {
  if (why_not) *why_not = "this build of Surge has no CUDA backend (configured without nvcc)";
  return std::nullopt;
}

std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup&) {
  throw std::runtime_error("this build of Surge has no CUDA backend (configured without nvcc)");
}

}  // namespace surge
