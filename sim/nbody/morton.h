// Morton (Z-order) codes: the bits of a body's grid cell along x, y and z interleaved, so that sorting the
// codes lays bodies out along a space-filling curve and every subtree of the radix tree built over them is
// a compact region of space (Karras 2012, sec. 2).
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"

namespace surge {

inline constexpr int kMortonBitsPerAxis = 21;  // 3 x 21 = 63 bits of a 64-bit key
inline constexpr int kMortonBits = 3 * kMortonBitsPerAxis;

// The low 21 bits of v moved to bit positions 0, 3, 6, ..., 60: each step doubles the gap between groups
// (groups of 16, 8, 4, 2, 1 bits) and the mask keeps the bits that landed in place.
//   0b1011 -> 0b001 000 001 001
SURGE_HD std::uint64_t spread_bits_by_3(std::uint64_t v) {
  v &= 0x1fffffull;
  v = (v | v << 32) & 0x1f00000000ffffull;
  v = (v | v << 16) & 0x1f0000ff0000ffull;
  v = (v | v << 8) & 0x100f00f00f00f00full;
  v = (v | v << 4) & 0x10c30c30c30c30c3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

// The bounding cube the codes quantise: cell = (x - origin) * cells_per_length, clamped to the grid.
template <typename T>
struct MortonFrame {
  Vec3<T> origin;
  T cells_per_length;
};

template <typename T>
SURGE_HD std::uint64_t morton_code(Vec3<T> x, MortonFrame<T> frame) {
  constexpr T kLastCell = T((1u << kMortonBitsPerAxis) - 1);
  const auto cell = [&](T coordinate, T origin) {
    T c = (coordinate - origin) * frame.cells_per_length;
    c = c < T(0) ? T(0) : (c > kLastCell ? kLastCell : c);
    return std::uint64_t(c);
  };
  return spread_bits_by_3(cell(x.x, frame.origin.x)) << 2 | spread_bits_by_3(cell(x.y, frame.origin.y)) << 1 |
         spread_bits_by_3(cell(x.z, frame.origin.z));
}

// The frame for bodies inside [lo, hi]: a cube of the largest extent, so cells are cubes.
template <typename T>
SURGE_HD MortonFrame<T> morton_frame(Vec3<T> lo, Vec3<T> hi) {
  T extent = hi.x - lo.x;
  extent = hi.y - lo.y > extent ? hi.y - lo.y : extent;
  extent = hi.z - lo.z > extent ? hi.z - lo.z : extent;
  const T cells = T(1u << kMortonBitsPerAxis);
  return {lo, extent > T(0) ? cells / extent : T(0)};
}

}  // namespace surge
