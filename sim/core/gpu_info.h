// What the CUDA runtime says about the GPU, for `--backend auto`, error messages and benchmark JSON.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace surge {

struct GpuInfo {
  int device = 0;
  std::string name;  // "NVIDIA H200"
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0;  // [bytes]
  std::size_t free_memory = 0;   // [bytes] when queried
  int driver_version = 0;        // CUDA driver API version, e.g. 13000
  int runtime_version = 0;
  std::string driver_string() const;  // "13.0"
};

// The first CUDA device, or nullopt with what is missing in *why_not: the build has no CUDA backend, no
// NVIDIA driver is installed, the driver is older than the build's CUDA runtime, or it finds no GPU.
std::optional<GpuInfo> query_gpu(std::string* why_not = nullptr);

// The first GPU's memory bandwidth as a device-to-device copy reaches it [bytes/s, read + write], the
// ceiling a benchmark measures each stage's byte floor against; 0 without a GPU. Takes a few milliseconds
// and 512 MiB of device memory, freed before it returns.
double measure_device_copy_bandwidth();

}  // namespace surge
