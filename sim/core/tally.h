// Counts a loop body reports for the host to read later, added up where the loop runs (the executors'
// for_each_tallied): two sums and a largest value of non-negative integers, so the totals do not depend
// on the order the items are visited in, and on the GPU they fuse into the pass that produces them (block
// sums in shared memory, one atomic per block) instead of costing a reduction pass of their own.
#pragma once

#include <cstdint>
#include <cstring>

#include "sim/core/hd.h"

namespace surge {

// What one item adds.
struct Tally {
  std::uint32_t sum_a = 0, sum_b = 0;  // added over the items
  std::uint32_t max = 0;               // the largest over the items
};

// What the items added, in the executor's memory (a device buffer on the GPU); for_each_tallied adds to
// it, so a pass that starts a tally zeroes it first.
struct TallyTotals {
  unsigned long long sum_a = 0, sum_b = 0;
  unsigned int max = 0;
};

// The bits of a non-negative float, which order as the float does: a largest speed as a Tally's max.
SURGE_HD std::uint32_t ordered_bits(float non_negative) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(non_negative);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &non_negative, sizeof bits);
  return bits;
#endif
}
SURGE_HD float from_ordered_bits(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

}  // namespace surge
