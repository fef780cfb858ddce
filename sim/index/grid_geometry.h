// The uniform grid behind the spatial index: cubic cells of edge = kernel support / cells_per_support.
// With one cell per support every neighbour of a particle lies in the 3x3x3 block of cells around its own;
// with two (cells of half a support) in the 5x5x5 block, of which the search visits only the cells that
// reach within the support of the particle (neighbor_loop.h). Keys are linear with x fastest, so the cells
// of a row (x-1, x, x+1) are one contiguous key range: a neighbour loop visits nine ranges instead of 27
// cells (25 or fewer rows of up to five cells with half cells).
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"

namespace surge {

struct GridGeometry {
  Vec3f origin{};       // lower corner of cell (0,0,0) [m]
  float cell_size = 1;  // [m]
  float inv_cell_size = 1;
  int nx = 1, ny = 1, nz = 1;
  // Cells across the radius the neighbour search covers, cells_per_support * cell_size (the kernel support,
  // or support + skin for a skin index): 1 or 2. Smaller cells test fewer candidates per neighbour found
  // and need a cell table 8x larger.
  int cells_per_support = 1;

  SURGE_HD std::uint32_t cell_count() const {
    return std::uint32_t(nx) * std::uint32_t(ny) * std::uint32_t(nz);
  }

  // Cell coordinate along one axis, clamped into the grid: a particle outside the grid is filed in the
  // border cell (the run's domain check reports it); clamping keeps every key a valid table index.
  SURGE_HD static int clamp_cell(float coordinate, int n) {
    int c = int(floorf(coordinate));
    return c < 0 ? 0 : (c >= n ? n - 1 : c);
  }
  SURGE_HD int cell_x(float x) const { return clamp_cell((x - origin.x) * inv_cell_size, nx); }
  SURGE_HD int cell_y(float y) const { return clamp_cell((y - origin.y) * inv_cell_size, ny); }
  SURGE_HD int cell_z(float z) const { return clamp_cell((z - origin.z) * inv_cell_size, nz); }

  SURGE_HD std::uint32_t key(int cx, int cy, int cz) const {
    return (std::uint32_t(cz) * std::uint32_t(ny) + std::uint32_t(cy)) * std::uint32_t(nx) +
           std::uint32_t(cx);
  }
  SURGE_HD std::uint32_t key_of(Vec3f p) const { return key(cell_x(p.x), cell_y(p.y), cell_z(p.z)); }

  // Number of significant bits in the largest key: the radix sort need not look at the others.
  int key_bits() const {
    std::uint32_t largest = cell_count() - 1;
    int bits = 1;
    while (largest >>= 1) ++bits;
    return bits;
  }
};

}  // namespace surge
