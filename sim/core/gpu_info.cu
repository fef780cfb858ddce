#include <cstdio>

#include "sim/core/cuda_check.h"
#include "sim/core/gpu_info.h"

namespace surge {

std::string GpuInfo::driver_string() const {
  char text[32];
  std::snprintf(text, sizeof text, "%d.%d", driver_version / 1000, (driver_version % 1000) / 10);
  return text;
}

std::optional<GpuInfo> query_gpu(std::string* why_not) {
  int count = 0;
  // Without a driver this returns cudaErrorInsufficientDriver (35) and count 0; it does not crash.
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0) {
    if (why_not)
      *why_not = error != cudaSuccess ? std::string("no usable CUDA driver or device (") +
                                            cudaGetErrorName(error) + ": " + cudaGetErrorString(error) + ")"
                                      : "no CUDA device found";
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return std::nullopt;
  }
  GpuInfo info;
  cudaDeviceProp props{};
  SURGE_CUDA_CHECK(cudaGetDeviceProperties(&props, 0));
  SURGE_CUDA_CHECK(cudaSetDevice(0));
  info.device = 0;
  info.name = props.name;
  info.compute_major = props.major;
  info.compute_minor = props.minor;
  info.multiprocessors = props.multiProcessorCount;
  SURGE_CUDA_CHECK(cudaMemGetInfo(&info.free_memory, &info.total_memory));
  SURGE_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  SURGE_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

}  // namespace surge
