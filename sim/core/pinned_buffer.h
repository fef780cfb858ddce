// RAII ownership of page-locked ("pinned") host memory: the only host memory the GPU's copy engines
// can read and write asynchronously, so copies on their own stream overlap kernels (hybrid-overlap).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <utility>

#include "sim/core/cuda_check.h"

namespace surge {

template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (data_) cudaFreeHost(data_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  // Contents are not kept when the buffer grows.
  void resize(std::size_t count) {
    if (count > capacity_) {
      if (data_) SURGE_CUDA_CHECK(cudaFreeHost(data_));
      data_ = nullptr;
      capacity_ = 0;
      SURGE_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)));
      capacity_ = count;
    }
    size_ = count;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  std::span<const T> view() const { return {data_, size_}; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace surge
