// K maxima that a pass reduces as it runs (an executor's for_each_with_max): unsigned 64-bit keys, so that a
// value and the particle it belongs to travel together (a non-negative float's bits order like the float) and
// the GPU can merge them with one integer atomicMax per block.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/ordered_bits.h"

namespace surge {

template <int K>
struct MaxKeys {
  unsigned long long key[K] = {};
};

// The bits of a non-negative float as a key that orders like the float, in the high half; `low` rides along
// in the low half (a particle index). NaN and negative values give 0, as a max reduction that starts at 0
// and compares with < passes them over.
SURGE_HD unsigned long long max_key(float value, std::uint32_t low = 0) {
  if (!(value > 0.0f)) return low;
  return (static_cast<unsigned long long>(ordered_bits(value)) << 32) | low;
}

// The float of a max_key and the value that rode along with it.
SURGE_HD float max_key_value(unsigned long long key) {
  return from_ordered_bits(std::uint32_t(key >> 32));
}
SURGE_HD std::uint32_t max_key_low(unsigned long long key) {
  return std::uint32_t(key & 0xffffffffull);
}

}  // namespace surge
