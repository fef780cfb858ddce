#include <cstdio>
#include <string>

#include "sim/core/cuda_check.h"
#include "sim/core/gpu_info.h"

namespace surge {

std::string GpuInfo::driver_string() const {
  char text[32];
  std::snprintf(text, sizeof text, "%d.%d", driver_version / 1000, (driver_version % 1000) / 10);
  return text;
}

namespace {

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// What is missing, in the words a user can act on: no driver at all, a driver older than the runtime this
// binary carries (it is linked statically), or a driver that sees no device.
std::string why_no_device(cudaError_t error, int count) {
  int driver = 0, runtime = 0;
  // Both work without a driver: the runtime reports driver version 0 when libcuda.so.1 cannot be loaded.
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  if (driver == 0) return "no NVIDIA driver is installed (libcuda.so.1 not found)";
  const std::string driver_text = "the NVIDIA driver (CUDA " + cuda_version_string(driver) + ")";
  if (error == cudaErrorInsufficientDriver || driver < runtime)
    return driver_text + " is older than this build's CUDA runtime " + cuda_version_string(runtime) +
           ": update the driver";
  if (error == cudaErrorNoDevice || (error == cudaSuccess && count == 0))
    return driver_text + " is installed but finds no GPU";
  return driver_text + " could not start a GPU (" + cudaGetErrorName(error) + ": " +
         cudaGetErrorString(error) + ")";
}

}  // namespace

std::optional<GpuInfo> query_gpu(std::string* why_not) {
  int count = 0;
  // Without a driver this returns cudaErrorInsufficientDriver (35) and count 0; it does not crash.
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0) {
    if (why_not) *why_not = why_no_device(error, count);
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

double measure_device_copy_bandwidth() {
  if (!query_gpu()) return 0.0;
  // Large enough to leave the 50-60 MB L2 of current GPUs far behind; the best of several timed copies,
  // after one that warms the clocks.
  constexpr std::size_t kBytes = std::size_t(256) << 20;
  constexpr int kRepeats = 10;
  void* source = nullptr;
  void* destination = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  double best_ms = 0.0;
  auto release = [&] {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaFree(source);
    cudaFree(destination);
  };
  try {
    SURGE_CUDA_CHECK(cudaMalloc(&source, kBytes));
    SURGE_CUDA_CHECK(cudaMalloc(&destination, kBytes));
    SURGE_CUDA_CHECK(cudaMemset(source, 1, kBytes));
    SURGE_CUDA_CHECK(cudaEventCreate(&start));
    SURGE_CUDA_CHECK(cudaEventCreate(&stop));
    SURGE_CUDA_CHECK(cudaMemcpy(destination, source, kBytes, cudaMemcpyDeviceToDevice));
    for (int k = 0; k < kRepeats; ++k) {
      SURGE_CUDA_CHECK(cudaEventRecord(start));
      SURGE_CUDA_CHECK(cudaMemcpyAsync(destination, source, kBytes, cudaMemcpyDeviceToDevice));
      SURGE_CUDA_CHECK(cudaEventRecord(stop));
      SURGE_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0.0f;
      SURGE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (best_ms == 0.0 || double(ms) < best_ms) best_ms = double(ms);
    }
  } catch (...) {
    release();
    throw;
  }
  release();
  return best_ms > 0.0 ? 2.0 * double(kBytes) / (best_ms * 1e-3) : 0.0;
}

}  // namespace surge
