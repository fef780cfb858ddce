// Built instead of gpu_info.cu when nvcc is absent: no GPU, and why.
#include "sim/core/gpu_info.h"

namespace surge {

std::string GpuInfo::driver_string() const {
  return "none";
}

std::optional<GpuInfo> query_gpu(std::string* why_not) {
  if (why_not) *why_not = "this build of Surge has no CUDA backend (configured without nvcc)";
  return std::nullopt;
}

}  // namespace surge
