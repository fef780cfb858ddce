// The one CUDA launch kit (after the CUDA samples' computeGridSize): the block size, the grid that covers n
// threads, and a checked launch. Every kernel launch in Surge sizes its grid here.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "sim/core/cuda_check.h"

namespace surge {

// Threads per block: a multiple of the warp that keeps enough warps per SM resident for the memory-bound
// particle passes (docs/perf/).
inline constexpr int kBlock = 256;

// Blocks of `block` threads that cover n threads.
constexpr unsigned blocks_for(std::size_t n, int block = kBlock) {
  return unsigned((n + std::size_t(block) - 1) / std::size_t(block));
}

// kernel<<<blocks_for(n), kBlock, 0, stream>>>(arguments...), checked; nothing for n == 0.
template <typename... Parameters, typename... Arguments>
void launch(const char* name, std::size_t n, cudaStream_t stream, void (*kernel)(Parameters...),
            Arguments&&... arguments) {
  if (n == 0) return;
  kernel<<<blocks_for(n), kBlock, 0, stream>>>(static_cast<Arguments&&>(arguments)...);
  if (const cudaError_t error = cudaPeekAtLastError(); error != cudaSuccess)
    throw_cuda_error(error, name, __FILE__, __LINE__);
}

}  // namespace surge
