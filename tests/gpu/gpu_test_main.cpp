// GPU tests: run where a CUDA GPU is present; elsewhere say why and exit 77, which ctest shows as
// Skipped (SKIP_RETURN_CODE), never as a silent pass.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim/core/gpu_info.h"

int main(int argc, char** argv) {
  std::string why_not;
  const auto gpu = surge::query_gpu(&why_not);
  if (!gpu) {
    std::printf("SKIPPED: GPU tests need a CUDA GPU: %s\n", why_not.c_str());
    return 77;
  }
  std::printf("GPU tests on %s (CC %d.%d, %d SMs, %.1f GiB, driver %s)\n", gpu->name.c_str(),
              gpu->compute_major, gpu->compute_minor, gpu->multiprocessors,
              double(gpu->total_memory) / double(1ull << 30), gpu->driver_string().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
