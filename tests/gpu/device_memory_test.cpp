// An allocation that runs out of device memory after the setup's check passed (another process took the
// memory meanwhile) is reported as the check would report it: a CapacityError naming how many particles fit
// in the memory free then, which the app prints against the scene key (exit 2). Runs under the `gpu` label.
#include <gtest/gtest.h>

#include <string>

#include "sim/backend/gpu_capacity.h"
#include "sim/core/device_buffer.h"
#include "sim/core/vec.h"

namespace surge {
namespace {

TEST(DeviceMemory, AnAllocationThatRunsOutSaysHowManyParticlesFit) {
  const DeviceDemand demand{
      .count = 3'000'000'000, .items = "fluid particles", .per_item = 128, .fixed = std::size_t(64) << 20};
  try {
    // 16 TiB: more than any GPU holds, so cudaMalloc fails with cudaErrorMemoryAllocation.
    allocate_for(demand, [] {
      DeviceBuffer<Vec4f> too_large(std::size_t(1) << 40);
      return 0;
    });
    FAIL() << "a 16 TiB allocation succeeded";
  } catch (const CapacityError& error) {
    const std::string text = error.what();
    EXPECT_NE(
        text.find("3000000000 fluid particles ran out of memory while allocating their 357.69 GiB of GPU "
                  "memory; "),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("GiB free, enough for about "), std::string::npos) << text;
    // What fits is the free memory over 128 bytes: between 10 million (a small GPU) and the count asked.
    EXPECT_GT(error.max_particles(), 10'000'000u) << text;
    EXPECT_LT(error.max_particles(), 3'000'000'000u) << text;
    EXPECT_EQ(error.requested_particles(), 3'000'000'000u);
  }
  // The device is usable afterwards: the failed allocation left no error behind.
  DeviceBuffer<Vec4f> small(1024);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace surge
