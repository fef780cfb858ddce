// Visiting the neighbours of a point through a cell index, the same way on the CPU and the GPU.
//
// A cell index over particles sorted by cell key: `cell_start` has cell_count + 1 entries (the last a
// guard equal to the particle count), and the particles of cell c are [cell_start[c], cell_start[c+1]).
// Six particles in a grid of four cells, with keys after sorting
//
//   key:        [0 | 0 | 2 | 2 | 2 | 3]
//   cell_start: [0, 2, 2, 5, 6]        (cell 1 is empty: start 2, end 2)
//
// Because keys are linear with x fastest, cells (x-1..x+1, y, z) are one contiguous particle range,
// so the 27 neighbouring cells are nine ranges. With cells of half a support (GridGeometry::cells_per_support
// = 2) the neighbours lie in the 5x5x5 block: up to 25 rows of up to five cells, of which the search keeps
// only the cells that come within the support of the point itself (for_each_cell_range).
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/index/grid_geometry.h"

namespace surge {

struct CellIndexView {
  const Vec4f* positions = nullptr;           // sorted by cell; w is a per-particle scalar
  const std::uint32_t* cell_start = nullptr;  // cell_count + 1 entries
  // Null when the particle arrays are sorted by cell (the default). Otherwise the arrays stay in creation
  // order and the k-th particle in cell order is positions[sorted_order[k]]: the memory-order lesson
  // (docs/lessons/3-memory-order.md) reads neighbours through this indirection instead of reordering.
  const std::uint32_t* sorted_order = nullptr;
  // Optional neighbour lists (CSR), built once per step by backends that gain from them (the CPU executor of
  // the iterative solvers): the candidates of particle i are list[list_start[i] .. list_start[i+1]), indices
  // into `positions`. Null: neighbours are found through the cells.
  const std::uint32_t* list_start = nullptr;
  const std::uint32_t* list = nullptr;
  // Optional, with the lists: grad_i W(x_i - x_j) of every listed pair, cached while positions stand still
  // (the DFSPH solves); null when positions move between list builds (PBF).
  const Vec4f* list_gradient = nullptr;
  // Optional, for wall particles: their velocities, parallel to `positions` (a moving solid's particles);
  // null where every particle stands still.
  const Vec4f* velocities = nullptr;
};

// A wall particle b's velocity: a moving solid's particles carry theirs beside their positions (the view's
// `velocities`); the tank's walls and fixed solids stand still.
SURGE_HD Vec3f boundary_velocity(const CellIndexView& boundary, std::uint32_t b) {
  return boundary.velocities != nullptr ? xyz(boundary.velocities[b]) : Vec3f{};
}

// Rounding slack of the pruned search, in cells: the point and the particles are filed by the same
// arithmetic (GridGeometry::cell_x), but the search's bounds in cells and the distance test in metres round
// differently, by a few float ulps of the coordinate in cells (2.4e-7 x 65536 cells = 1/64 at the largest).
// A 64th of a cell widens a row by a cell at about one row end in 64, a fraction of a percent of the
// candidates.
inline constexpr float kPrunedSearchSlackCells = 1.0f / 64.0f;

// Distance, in cells, from the coordinate u (in cells) to cell c of an axis of n cells. The border cells
// reach to infinity outward: a particle beyond the grid is filed in them (GridGeometry::clamp_cell).
SURGE_HD float distance_to_cell(float u, int c, int n) {
  if (c > 0 && u < float(c)) return float(c) - u;
  if (c < n - 1 && u > float(c + 1)) return u - float(c + 1);
  return 0.0f;
}

// Calls range(begin, end) for each contiguous particle range [begin, end) of `index` that the neighbour
// search around x tests, rows in order of increasing z, then y. Every particle within the grid's reach
// (cells_per_support x cell_size: the support) of x is in one of them.
//
// One cell per support: the nine rows of three cells around x's cell (fewer at the domain's edges).
//
// Several (cells of half a support): the rows of the 5x5 block in (y, z) whose nearest point lies within the
// reach R of x, each trimmed along x to the cells within sqrt(R^2 - d_yz^2) of x, d_yz being the distance
// from x to the row; both measured from x's own position, not its cell's. A particle of the row is at least
// d_yz from x across the row, so one beyond the trimmed cells is beyond the reach. The trimming measures from
// where the particles were filed: a particle moved since the sort (PBF's corrections between its sorts, where
// no lists are kept) is found while its filed position is within the reach, a tighter margin than the 27
// whole cells leave.
template <typename Range>
SURGE_HD void for_each_cell_range(const GridGeometry& grid, const CellIndexView& index, Vec3f x,
                                  Range&& range) {
  if (grid.cells_per_support == 1) {
    const int cx = grid.cell_x(x.x), cy = grid.cell_y(x.y), cz = grid.cell_z(x.z);
    const int x_first = cx > 0 ? cx - 1 : 0;
    const int x_last = cx + 1 < grid.nx ? cx + 1 : grid.nx - 1;
    for (int z = cz - 1; z <= cz + 1; ++z) {
      if (z < 0 || z >= grid.nz) continue;
      for (int y = cy - 1; y <= cy + 1; ++y) {
        if (y < 0 || y >= grid.ny) continue;
        range(index.cell_start[grid.key(x_first, y, z)], index.cell_start[grid.key(x_last, y, z) + 1]);
      }
    }
    return;
  }
  // x in cells, by the arithmetic that files the particles.
  const float ux = (x.x - grid.origin.x) * grid.inv_cell_size;
  const float uy = (x.y - grid.origin.y) * grid.inv_cell_size;
  const float uz = (x.z - grid.origin.z) * grid.inv_cell_size;
  const float reach = float(grid.cells_per_support) + kPrunedSearchSlackCells;
  const float reach2 = reach * reach;
  const int z_last = GridGeometry::clamp_cell(uz + reach, grid.nz);
  const int y_first = GridGeometry::clamp_cell(uy - reach, grid.ny);
  const int y_last = GridGeometry::clamp_cell(uy + reach, grid.ny);
  for (int z = GridGeometry::clamp_cell(uz - reach, grid.nz); z <= z_last; ++z) {
    const float dz = distance_to_cell(uz, z, grid.nz);
    for (int y = y_first; y <= y_last; ++y) {
      const float dy = distance_to_cell(uy, y, grid.ny);
      const float row_distance2 = dy * dy + dz * dz;
      if (row_distance2 >= reach2) continue;
      const float half_width = sqrtf(reach2 - row_distance2);
      const int x_first = GridGeometry::clamp_cell(ux - half_width, grid.nx);
      const int x_last = GridGeometry::clamp_cell(ux + half_width, grid.nx);
      range(index.cell_start[grid.key(x_first, y, z)], index.cell_start[grid.key(x_last, y, z) + 1]);
    }
  }
}

// Calls visit(j, r_ij, r2, w_j) for every particle j of `index` with |x_i - x_j|^2 < support2, i included
// when it is in the index (r2 = 0); w_j is the w of j's position, which the search has loaded with it.
// j indexes index.positions (and the arrays parallel to it).
template <typename Visit>
SURGE_HD void for_each_neighbor_with_w(const GridGeometry& grid, const CellIndexView& index, Vec3f x_i,
                                       float support2, Visit&& visit) {
  for_each_cell_range(grid, index, x_i, [&](std::uint32_t begin, std::uint32_t end) {
    // Two loops rather than one with a per-candidate test: the sorted case is the hot path.
    if (index.sorted_order == nullptr) {
      for (std::uint32_t j = begin; j < end; ++j) {
        const Vec4f p = index.positions[j];
        const Vec3f r_ij{x_i.x - p.x, x_i.y - p.y, x_i.z - p.z};
        const float r2 = length_squared(r_ij);
        if (r2 < support2) visit(j, r_ij, r2, p.w);
      }
    } else {
      for (std::uint32_t k = begin; k < end; ++k) {
        const std::uint32_t j = index.sorted_order[k];
        const Vec4f p = index.positions[j];
        const Vec3f r_ij{x_i.x - p.x, x_i.y - p.y, x_i.z - p.z};
        const float r2 = length_squared(r_ij);
        if (r2 < support2) visit(j, r_ij, r2, p.w);
      }
    }
  });
}

// The same, visit(j, r_ij, r2) without the w.
template <typename Visit>
SURGE_HD void for_each_neighbor(const GridGeometry& grid, const CellIndexView& index, Vec3f x_i,
                                float support2, Visit&& visit) {
  for_each_neighbor_with_w(grid, index, x_i, support2,
                           [&](std::uint32_t j, Vec3f r_ij, float r2, float) { visit(j, r_ij, r2); });
}

// The candidates a cell search around x tests: every particle of the ranges for_each_cell_range visits.
SURGE_HD std::uint32_t cell_candidates(const GridGeometry& grid, const CellIndexView& index, Vec3f x) {
  std::uint32_t count = 0;
  for_each_cell_range(grid, index, x, [&](std::uint32_t begin, std::uint32_t end) { count += end - begin; });
  return count;
}

// The same for fluid particle i at x_i, through the neighbour lists of `index` when it has them. The lists
// hold the particles that were within the support when they were built; the distance is tested again, since
// the iterative solvers move particles between list builds.
template <typename Visit>
SURGE_HD void for_each_neighbor_of(const GridGeometry& grid, const CellIndexView& index, std::uint32_t i,
                                   Vec3f x_i, float support2, Visit&& visit) {
  if (index.list == nullptr) {
    for_each_neighbor(grid, index, x_i, support2, visit);
    return;
  }
  for (std::uint32_t k = index.list_start[i]; k < index.list_start[i + 1]; ++k) {
    const std::uint32_t j = index.list[k];
    const Vec4f p = index.positions[j];
    const Vec3f r_ij{x_i.x - p.x, x_i.y - p.y, x_i.z - p.z};
    const float r2 = length_squared(r_ij);
    if (r2 < support2) visit(j, r_ij, r2);
  }
}

// Calls visit(j, grad_i W_ij) for every neighbour j of fluid particle i: from the cached gradients of the
// lists when `index` has them, else computed from the positions with `kernel`.
template <typename Kernel, typename Visit>
SURGE_HD void for_each_neighbor_gradient_of(const GridGeometry& grid, const CellIndexView& index,
                                            std::uint32_t i, Vec3f x_i, float support2, const Kernel& kernel,
                                            Visit&& visit) {
  if (index.list_gradient != nullptr) {
    for (std::uint32_t k = index.list_start[i]; k < index.list_start[i + 1]; ++k)
      visit(index.list[k], xyz(index.list_gradient[k]));
    return;
  }
  for_each_neighbor_of(grid, index, i, x_i, support2, [&](std::uint32_t j, Vec3f r_ij, float r2) {
    visit(j, kernel.gradient(r_ij, sqrtf(r2)));
  });
}

}  // namespace surge
