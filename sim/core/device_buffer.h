// RAII ownership of device memory: no naked cudaMalloc/cudaFree in solver code. Copies between host and
// device go through copy_to_device / copy_to_host, which record them in the transfer ledger.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/cuda_check.h"
#include "sim/core/transfer_ledger.h"

namespace surge {

// Device allocations made by DeviceBuffers so far, process-wide. A captured CUDA graph holds device
// addresses (sim/backend/cuda_step_graphs.h): a count that moved since its capture says a buffer it reads
// may have been freed and allocated elsewhere.
inline std::atomic<std::uint64_t>& device_allocation_count() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    swap(other);
    return *this;
  }

  // Contents are not kept when the buffer grows.
  void resize(std::size_t count) {
    if (count > capacity_) {
      if (data_) SURGE_CUDA_CHECK(cudaFree(data_));
      data_ = nullptr;
      capacity_ = 0;
      SURGE_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
      capacity_ = count;
      device_allocation_count() += 1;
    }
    size_ = count;
  }
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

template <typename T>
void copy_to_device(DeviceBuffer<T>& destination, const std::vector<T>& source, TransferLedger& ledger,
                    const std::string& reason) {
  destination.resize(source.size());
  const auto start = std::chrono::steady_clock::now();
  SURGE_CUDA_CHECK(
      cudaMemcpy(destination.data(), source.data(), source.size() * sizeof(T), cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy returns once the bytes are staged, before the DMA has landed, and the
  // executors' streams are non-blocking (they do not wait for the legacy stream the copy went on): a
  // kernel or read-back queued next could see the old contents. Seen under compute-sanitizer, whose
  // slowdown let a checkpoint's restored step state be read back before its upload had landed.
  SURGE_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  const auto stop = std::chrono::steady_clock::now();
  ledger.record(CopyDirection::host_to_device, source.size() * sizeof(T),
                std::chrono::duration<double, std::milli>(stop - start).count(), reason);
}

// Copies the first `count` entries of `source` (the active particles of a buffer allocated for more).
template <typename T>
void copy_to_host(std::vector<T>& destination, const DeviceBuffer<T>& source, std::size_t count,
                  TransferLedger& ledger, const std::string& reason) {
  if (count > source.size()) throw std::logic_error("copy_to_host: more entries asked than the buffer holds");
  destination.resize(count);
  const auto start = std::chrono::steady_clock::now();
  SURGE_CUDA_CHECK(cudaMemcpy(destination.data(), source.data(), count * sizeof(T), cudaMemcpyDeviceToHost));
  const auto stop = std::chrono::steady_clock::now();
  ledger.record(CopyDirection::device_to_host, count * sizeof(T),
                std::chrono::duration<double, std::milli>(stop - start).count(), reason);
}

template <typename T>
void copy_to_host(std::vector<T>& destination, const DeviceBuffer<T>& source, TransferLedger& ledger,
                  const std::string& reason) {
  copy_to_host(destination, source, source.size(), ledger, reason);
}

}  // namespace surge
