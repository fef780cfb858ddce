// How much work one neighbour pass over the fluid is, so that two runs (or Surge and a peer) can be compared
// at equal work: the neighbours each fluid particle has inside the support, fluid and wall, and the
// candidates the cell search tests to find them (every particle of the cell ranges it visits,
// for_each_cell_range). A benchmark reports the means, the pairs one pass visits, the candidates tested per
// neighbour found and the index's cells per support that decided them (docs/perf/README.md). Counted on the
// cell index of the last step, once, when asked: not part of a step.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/named_value.h"
#include "sim/index/neighbor_loop.h"

namespace surge {

struct NeighborCensus {
  double fluid_particles = 0;
  double fluid_neighbors = 0;  // pairs (i, j) with j fluid inside the support, i itself included
  double wall_neighbors = 0;   // pairs (i, b) with b a wall particle inside the support
  double candidates = 0;       // particles of the cells searched, fluid and wall
  int cells_per_support = 1;   // of the grid searched (GridGeometry::cells_per_support)

  std::vector<NamedValue> figures() const {
    const double pairs = fluid_neighbors + wall_neighbors;
    if (fluid_particles == 0) return {};
    return {{"fluid_neighbors_per_particle", fluid_neighbors / fluid_particles},
            {"wall_neighbors_per_particle", wall_neighbors / fluid_particles},
            {"neighbors_per_particle", pairs / fluid_particles},
            {"neighbor_pairs_per_pass", pairs},
            {"candidates_per_neighbor", pairs > 0 ? candidates / pairs : 0.0},
            {"index_cells_per_support", double(cells_per_support)}};
  }
};

// The census of n fluid particles through the cells of `fluid` and `boundary`: the caller passes cell views.
// Where an executor keeps per-step lists (DFSPH and PBF, CPU and GPU) the cell search runs once a step, to
// build them, and the passes read the lists (on the GPU the executor's `neighbor_list_entries` figure says
// so).
template <typename Exec>
NeighborCensus count_neighbors(Exec& exec, std::uint32_t n, const GridGeometry& grid,
                               const CellIndexView& fluid, const CellIndexView& boundary, float support) {
  NeighborCensus census;
  census.fluid_particles = double(n);
  census.cells_per_support = grid.cells_per_support;
  if (n == 0) return census;
  const float support2 = support * support;
  census.fluid_neighbors = exec.sum(n, [=] SURGE_LAMBDA(std::uint32_t i) {
    std::uint32_t count = 0;
    for_each_neighbor(grid, fluid, xyz(fluid.positions[i]), support2,
                      [&](std::uint32_t, Vec3f, float) { ++count; });
    return double(count);
  });
  census.wall_neighbors = exec.sum(n, [=] SURGE_LAMBDA(std::uint32_t i) {
    std::uint32_t count = 0;
    for_each_neighbor(grid, boundary, xyz(fluid.positions[i]), support2,
                      [&](std::uint32_t, Vec3f, float) { ++count; });
    return double(count);
  });
  census.candidates = exec.sum(n, [=] SURGE_LAMBDA(std::uint32_t i) {
    const Vec3f x = xyz(fluid.positions[i]);
    return double(cell_candidates(grid, fluid, x) + cell_candidates(grid, boundary, x));
  });
  return census;
}

}  // namespace surge
