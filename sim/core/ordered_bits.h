// The bits of a non-negative float as an unsigned integer, which orders as the float does: maxima reduced
// with integer atomics on the GPU (a Tally's max in tally.h, the keys of max_keys.h), and the float back.
#pragma once

#include <cstdint>
#include <cstring>

#include "sim/core/hd.h"

namespace surge {

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
