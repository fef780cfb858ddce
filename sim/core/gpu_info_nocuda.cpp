// Built instead of gpu_info.cu when nvcc is absent: no GPU, and why.
#include <filesystem>

#include "sim/core/gpu_info.h"

namespace surge {

std::string GpuInfo::driver_string() const {
  return "none";
}

std::optional<GpuInfo> query_gpu(std::string* why_not) {
  if (!why_not) return std::nullopt;
  *why_not = "this build of Surge has no CUDA backend (configured with SURGE_CUDA=OFF, or without nvcc)";
  // scripts/run.sh leaves the backend out where it finds no driver; say so where one has appeared since.
  if (std::filesystem::exists("/proc/driver/nvidia/version"))
    *why_not += "; this machine has an NVIDIA driver: rebuild with SURGE_CUDA=ON";
  return std::nullopt;
}

double measure_device_copy_bandwidth() {
  return 0.0;
}

}  // namespace surge
