// What every CUDA backend holds besides its particle arrays: a stream of its own, and a small step record
// (time, step, dt, maxima, instability) that lives on the device and is read back only when asked, through
// pinned memory so the copy is one short DMA. Destruction waits for the stream, so no kernel outlives the
// buffers it uses (members are destroyed in reverse order: declare the stream first).
#pragma once

#include <cuda_runtime.h>

#include <chrono>

#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/core/pinned_buffer.h"
#include "sim/core/transfer_ledger.h"

namespace surge {

class CudaStream {
 public:
  CudaStream() { SURGE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  operator cudaStream_t() const { return stream_; }
  void synchronize() const { SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

// One T on the device with a pinned host mirror. Kernels update device(); read() copies it back on the
// stream, waits, and records the copy in the ledger.
template <typename T>
class DeviceRecord {
 public:
  // Uploads the first value synchronously (before any kernel runs), recorded as `reason`.
  DeviceRecord(const T& initial, TransferLedger& ledger, const char* reason) : device_(1) {
    host_.resize(1);
    SURGE_CUDA_CHECK(cudaMemcpy(device_.data(), &initial, sizeof(T), cudaMemcpyHostToDevice));
    ledger.record(CopyDirection::host_to_device, sizeof(T), 0.0, reason);
  }

  T* device() { return device_.data(); }

  const T& read(cudaStream_t stream, TransferLedger& ledger, const char* reason) {
    const auto start = std::chrono::steady_clock::now();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(host_.data(), device_.data(), sizeof(T), cudaMemcpyDeviceToHost, stream));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream));
    const auto stop = std::chrono::steady_clock::now();
    ledger.record(CopyDirection::device_to_host, sizeof(T),
                  std::chrono::duration<double, std::milli>(stop - start).count(), reason);
    return *host_.data();
  }

 private:
  DeviceBuffer<T> device_;
  PinnedBuffer<T> host_;
};

}  // namespace surge
