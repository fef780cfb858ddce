// RAII ownership of a CUDA stream. Non-blocking: work on it does not wait for the legacy default stream,
// so a backend's step overlaps other backends' and the copy streams' work.
#pragma once

#include <cuda_runtime.h>

#include "sim/core/cuda_check.h"

namespace surge {

class CudaStream {
 public:
  CudaStream() { SURGE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  // Waits for the work still queued, which may read buffers destroyed after the stream.
  ~CudaStream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return stream_; }
  operator cudaStream_t() const { return stream_; }
  void synchronize() const { SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace surge
