// The CPU cell index finds exactly the neighbours a brute-force O(N^2) search finds.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "sim/backend/cpu_executor.h"
#include "sim/index/cell_index_cpu.h"
#include "sim/index/neighbor_loop.h"
#include "sim/sph/neighbor_census.h"

namespace surge {
namespace {

GridGeometry make_grid(Vec3f lo, Vec3f hi, float cell) {
  GridGeometry g;
  g.origin = lo;
  g.cell_size = cell;
  g.inv_cell_size = 1.0f / cell;
  g.nx = int(std::ceil((hi.x - lo.x) / cell));
  g.ny = int(std::ceil((hi.y - lo.y) / cell));
  g.nz = int(std::ceil((hi.z - lo.z) / cell));
  return g;
}

TEST(CpuCellIndex, SortsStablyAndDelimitsEveryCell) {
  const GridGeometry grid = make_grid({0, 0, 0}, {1, 1, 1}, 0.25f);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<Vec4f> points(5000);
  for (auto& p : points) p = {u(rng), u(rng), u(rng), 0};
  CpuCellIndex index;
  index.build(grid, points);
  const auto& order = index.sorted_order();
  const auto& start = index.cell_start();
  ASSERT_EQ(start.size(), grid.cell_count() + 1);
  EXPECT_EQ(start.front(), 0u);
  EXPECT_EQ(start.back(), points.size());
  std::vector<bool> seen(points.size(), false);
  for (std::uint32_t c = 0; c < grid.cell_count(); ++c) {
    ASSERT_LE(start[c], start[c + 1]);
    for (std::uint32_t k = start[c]; k < start[c + 1]; ++k) {
      EXPECT_EQ(grid.key_of(xyz(points[order[k]])), c);
      if (k > start[c]) {
        EXPECT_LT(order[k - 1], order[k]) << "stable: creation order kept inside a cell";
      }
      seen[order[k]] = true;
    }
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](bool s) { return s; })) << "a permutation";
}

TEST(CpuCellIndex, NeighbourSetsEqualBruteForce) {
  const float support = 0.1f;
  // Points also outside the grid's box, to cover the clamped border cells.
  const GridGeometry grid = make_grid({0, 0, 0}, {1.0f, 0.6f, 0.8f}, support);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> ux(0.0f, 1.0f), uy(0.0f, 0.6f), uz(0.0f, 0.8f);
  std::vector<Vec4f> points(3000);
  for (auto& p : points) p = {ux(rng), uy(rng), uz(rng), 0};
  CpuCellIndex index;
  index.build(grid, points);
  std::vector<Vec4f> sorted(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) sorted[k] = points[index.sorted_order()[k]];
  const CellIndexView view{sorted.data(), index.cell_start().data()};

  long total = 0;
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    std::vector<std::uint32_t> from_grid, brute;
    for_each_neighbor(grid, view, xyz(sorted[k]), support * support,
                      [&](std::uint32_t j, Vec3f, float) { from_grid.push_back(index.sorted_order()[j]); });
    for (std::uint32_t j = 0; j < points.size(); ++j)
      if (length_squared(xyz(sorted[k]) - xyz(points[j])) < support * support) brute.push_back(j);
    std::sort(from_grid.begin(), from_grid.end());
    ASSERT_EQ(from_grid, brute) << "particle " << index.sorted_order()[k];
    total += long(brute.size());
  }
  // 3000 points in 0.48 m^3 with support 0.1: about 26 neighbours each (self included); an empty
  // search would have failed above, this guards against a degenerate test set.
  EXPECT_GT(total / long(points.size()), 15);
}

// The neighbour census a benchmark reports (sim/sph/neighbor_census.h) counts what a brute-force search
// counts: fluid and wall neighbours inside the support, and as candidates every particle of the (up to) 27
// cells around each fluid particle, counted here cell by cell from the points' own cells.
TEST(NeighborCensus, CountsEqualBruteForce) {
  const float support = 0.1f;
  const GridGeometry grid = make_grid({0, 0, 0}, {0.8f, 0.5f, 0.6f}, support);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> ux(0.0f, 0.8f), uy(0.0f, 0.5f), uz(0.0f, 0.6f), u01(0.0f, 1.0f);
  std::vector<Vec4f> fluid_points(2000), wall_points(600);
  for (auto& p : fluid_points) p = {ux(rng), uy(rng), uz(rng), 0};
  // Walls: a floor layer (z below 0.05), as a tank's would be.
  for (auto& p : wall_points) p = {ux(rng), uy(rng), 0.05f * u01(rng), 0};
  auto sorted_view = [&](const std::vector<Vec4f>& points, CpuCellIndex& index, std::vector<Vec4f>& sorted) {
    index.build(grid, points);
    sorted.resize(points.size());
    for (std::size_t k = 0; k < points.size(); ++k) sorted[k] = points[index.sorted_order()[k]];
    return CellIndexView{sorted.data(), index.cell_start().data()};
  };
  CpuCellIndex fluid_index, wall_index;
  std::vector<Vec4f> fluid_sorted, wall_sorted;
  const CellIndexView fluid = sorted_view(fluid_points, fluid_index, fluid_sorted);
  const CellIndexView walls = sorted_view(wall_points, wall_index, wall_sorted);

  TransferLedger ledger;
  CpuExecutor exec(ledger);
  const NeighborCensus census =
      count_neighbors(exec, std::uint32_t(fluid_sorted.size()), grid, fluid, walls, support);

  std::vector<long> per_cell(grid.cell_count(), 0);
  for (const auto* points : {&fluid_points, &wall_points})
    for (const Vec4f& p : *points) ++per_cell[grid.key_of(xyz(p))];
  double fluid_pairs = 0, wall_pairs = 0, candidates = 0;
  for (const Vec4f& x : fluid_points) {
    for (const Vec4f& y : fluid_points) fluid_pairs += length_squared(xyz(x) - xyz(y)) < support * support;
    for (const Vec4f& y : wall_points) wall_pairs += length_squared(xyz(x) - xyz(y)) < support * support;
    const int cx = grid.cell_x(x.x), cy = grid.cell_y(x.y), cz = grid.cell_z(x.z);
    for (int z = cz - 1; z <= cz + 1; ++z)
      for (int y = cy - 1; y <= cy + 1; ++y)
        for (int xx = cx - 1; xx <= cx + 1; ++xx)
          if (xx >= 0 && y >= 0 && z >= 0 && xx < grid.nx && y < grid.ny && z < grid.nz)
            candidates += double(per_cell[grid.key(xx, y, z)]);
  }
  EXPECT_EQ(census.fluid_neighbors, fluid_pairs);
  EXPECT_EQ(census.wall_neighbors, wall_pairs);
  EXPECT_EQ(census.candidates, candidates);
  EXPECT_GT(wall_pairs, 1000) << "the floor layer is inside the support of the lowest fluid points";
  const std::vector<NamedValue> figures = census.figures();
  ASSERT_EQ(figures.size(), 6u);
  EXPECT_EQ(figures[2].name, "neighbors_per_particle");
  EXPECT_DOUBLE_EQ(std::get<double>(figures[2].value), (fluid_pairs + wall_pairs) / 2000.0);
  EXPECT_DOUBLE_EQ(std::get<double>(figures[4].value), candidates / (fluid_pairs + wall_pairs));
  EXPECT_EQ(figures[5].name, "index_cells_per_support");
  EXPECT_EQ(std::get<double>(figures[5].value), 1.0);
  // Cells one support wide: the 27 cells hold 27 / (4/3 pi) = 6.4 times the volume of the support
  // sphere, so a uniform cloud tests about that many candidates per neighbour found (fewer at the edges).
  EXPECT_GT(candidates / (fluid_pairs + wall_pairs), 4.0);
  EXPECT_LT(candidates / (fluid_pairs + wall_pairs), 7.0);
}

}  // namespace
}  // namespace surge
