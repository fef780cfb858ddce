// Every CUDA call and launch is checked; a failure throws with the call, the file and the line, and
// the app turns it into a message (DESIGN.md, "Data").
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "sim/core/step_status.h"

namespace surge {

// Out of memory is DeviceOutOfMemory, which the backends' constructors report as what fits.
[[noreturn]] inline void throw_cuda_error(cudaError_t error, const char* call, const char* file, int line) {
  const std::string text = std::string("CUDA error ") + cudaGetErrorName(error) + " (" +
                           cudaGetErrorString(error) + ") in " + call + " at " + file + ":" +
                           std::to_string(line);
  if (error == cudaErrorMemoryAllocation) {
    // A failed cudaMalloc is not sticky, but it stays the runtime's last error: cleared here, so that the
    // next launch check (cudaPeekAtLastError) does not report it again after the app has handled it.
    (void)cudaGetLastError();
    throw DeviceOutOfMemory(text);
  }
  throw std::runtime_error(text);
}

}  // namespace surge

#define SURGE_CUDA_CHECK(call)                                                                           \
  do {                                                                                                   \
    const cudaError_t surge_error_ = (call);                                                             \
    if (surge_error_ != cudaSuccess) ::surge::throw_cuda_error(surge_error_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: catches bad launch configurations at once (execution errors surface at the
// next synchronising call, which is checked too).
#define SURGE_CUDA_CHECK_LAUNCH(name) SURGE_CUDA_CHECK(cudaPeekAtLastError())
