// The GPU cell index (both builds) gives the CPU's neighbour sets, equal to brute force, and the CPU's cell
// table wherever the cells are empty.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "sim/core/device_buffer.h"
#include "sim/index/cell_index_cpu.h"
#include "sim/index/cell_index_gpu.h"
#include "sim/index/neighbor_loop.h"
#include "tests/gpu/downloaded_cell_index.h"

namespace surge {
namespace {

class GpuCellIndexTest : public ::testing::TestWithParam<IndexBuild> {};

TEST_P(GpuCellIndexTest, NeighbourSetsEqualBruteForce) {
  const float support = 0.05f;
  GridGeometry grid;
  grid.origin = {0, 0, 0};
  grid.cell_size = support;
  grid.inv_cell_size = 1.0f / support;
  grid.nx = 20;
  grid.ny = 12;
  grid.nz = 16;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> ux(0.0f, 1.0f), uy(0.0f, 0.6f), uz(0.0f, 0.8f);
  std::vector<Vec4f> points(20000);
  for (auto& p : points) p = {ux(rng), uy(rng), uz(rng), 0};

  const auto [order, cell_start] = build_on_device(grid, points, GetParam());

  // A permutation, in non-decreasing key order, delimited by cell_start.
  std::vector<std::uint32_t> sorted_order = order;
  std::sort(sorted_order.begin(), sorted_order.end());
  for (std::uint32_t k = 0; k < sorted_order.size(); ++k) ASSERT_EQ(sorted_order[k], k);
  ASSERT_EQ(cell_start.back(), points.size());
  for (std::uint32_t c = 0; c < grid.cell_count(); ++c)
    for (std::uint32_t k = cell_start[c]; k < cell_start[c + 1]; ++k)
      ASSERT_EQ(grid.key_of(xyz(points[order[k]])), c);

  std::vector<Vec4f> sorted(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) sorted[k] = points[order[k]];
  const CellIndexView view{sorted.data(), cell_start.data()};
  long total = 0;
  for (std::size_t k = 0; k < sorted.size(); k += 7) {
    std::vector<std::uint32_t> from_grid, brute;
    for_each_neighbor(grid, view, xyz(sorted[k]), support * support,
                      [&](std::uint32_t j, Vec3f, float) { from_grid.push_back(order[j]); });
    for (std::uint32_t j = 0; j < points.size(); ++j)
      if (length_squared(xyz(sorted[k]) - xyz(points[j])) < support * support) brute.push_back(j);
    std::sort(from_grid.begin(), from_grid.end());
    ASSERT_EQ(from_grid, brute);
    total += long(brute.size());
  }
  EXPECT_GT(total, 10000) << "the test set has neighbours to find";
}

INSTANTIATE_TEST_SUITE_P(Builds, GpuCellIndexTest,
                         ::testing::Values(IndexBuild::radix_sort, IndexBuild::counting_sort));

// Mostly empty grids, as a dam break's tank is (the water a corner, the air and the walls' margin empty): the
// radix build's cell starts come from the merge path of the sorted keys with the cell numbers, a block per
// tile of 3840 items (256 threads x 15), so the layouts give it tiles of cells only (the empty stretches,
// longer than a tile), of keys only (a crowded cell), cells before the first key and after the last, and
// particles past the active count (an emitter's, key cell_count). The whole table, the guard included, must
// equal the CPU's counting sort over the active particles, and so must the order (radix sort; the counting
// build's order inside a cell is the atomics').
struct SparseLayout {
  const char* name;
  std::vector<Vec4f> points;
  std::optional<std::uint32_t> active_count;
};

std::vector<SparseLayout> sparse_layouts(Vec3f tank) {
  std::mt19937 rng(13);
  const auto uniform = [&](float low, float high) {
    return std::uniform_real_distribution<float>(low, high)(rng);
  };
  std::vector<SparseLayout> layouts;
  // The water column of a dam break (a quarter of the length, half the height) and the start of a surge
  // along the floor, some of it beyond the grid (filed in the border cells); the air above stays empty.
  SparseLayout column{"water column and surge", {}, std::nullopt};
  for (int i = 0; i < 60000; ++i)
    column.points.push_back({uniform(0, 0.25f * tank.x), uniform(0, tank.y), uniform(0, 0.5f * tank.z), 0});
  for (int i = 0; i < 200; ++i)
    column.points.push_back(
        {uniform(-0.05f, 1.05f * tank.x), uniform(0, tank.y), uniform(-0.05f, 0.5f * tank.z), 0});
  layouts.push_back(column);
  // The same with the last quarter of the slots past the active count (their positions do not count).
  SparseLayout emitting = column;
  emitting.name = "water column, a quarter of the slots inactive";
  emitting.active_count = std::uint32_t(3 * emitting.points.size() / 4);
  layouts.push_back(emitting);
  // Every particle in one cell in the middle of the tank: tiles of keys only.
  SparseLayout crowded{"one crowded cell", {}, std::nullopt};
  for (int i = 0; i < 20000; ++i) crowded.points.push_back({0.5f * tank.x, 0.5f * tank.y, 0.5f * tank.z, 0});
  layouts.push_back(crowded);
  // Two particles in the last cell, one in the first: the table is one empty stretch.
  layouts.push_back({"the first and the last cell",
                     {{0, 0, 0, 0}, {tank.x, tank.y, tank.z, 0}, {tank.x, tank.y, tank.z, 0}},
                     std::nullopt});
  layouts.push_back({"one particle", {{0.3f * tank.x, 0.6f * tank.y, 0.2f * tank.z, 0}}, std::nullopt});
  // Every slot past an active count of zero: the table is all zeros.
  layouts.push_back({"no active particle", column.points, 0u});
  return layouts;
}

class GpuCellTable : public ::testing::TestWithParam<std::tuple<int, IndexBuild>> {};

TEST_P(GpuCellTable, EqualsTheCpuTableOnSparseGrids) {
  const auto [cells_per_support, build] = GetParam();
  // A tank of 0.584 x 0.146 x 0.6 m (the dam break's), support 0.015 m: 39 x 10 x 40 cells whole, 8x half.
  const Vec3f tank{0.584f, 0.146f, 0.6f};
  const float support = 0.015f;
  GridGeometry grid;
  grid.cells_per_support = cells_per_support;
  grid.cell_size = support / float(cells_per_support);
  grid.inv_cell_size = 1.0f / grid.cell_size;
  grid.nx = int(std::ceil(tank.x / grid.cell_size));
  grid.ny = int(std::ceil(tank.y / grid.cell_size));
  grid.nz = int(std::ceil(tank.z / grid.cell_size));
  for (const SparseLayout& layout : sparse_layouts(tank)) {
    SCOPED_TRACE(layout.name);
    const std::uint32_t n = std::uint32_t(layout.points.size());
    const std::uint32_t active = layout.active_count.value_or(n);
    const auto [order, cell_start] = build_on_device(grid, layout.points, build, layout.active_count);
    CpuCellIndex cpu;
    cpu.build(grid, std::span<const Vec4f>(layout.points.data(), active));

    ASSERT_EQ(cell_start, cpu.cell_start());
    std::uint32_t occupied = 0, longest_empty_run = 0, run = 0;
    for (std::uint32_t c = 0; c < grid.cell_count(); ++c) {
      const bool empty = cell_start[c] == cell_start[c + 1];
      occupied += empty ? 0u : 1u;
      run = empty ? run + 1 : 0u;
      longest_empty_run = std::max(longest_empty_run, run);
    }
    std::printf("%d cell(s) per support, %s, %s: %u cells, %u occupied, longest empty run %u cells\n",
                cells_per_support, build == IndexBuild::radix_sort ? "radix sort" : "counting sort",
                layout.name, grid.cell_count(), occupied, longest_empty_run);
    EXPECT_GT(longest_empty_run, 3840u) << "an empty stretch longer than a merge tile";

    const std::vector<std::uint32_t> active_order(order.begin(), order.begin() + active);
    if (build == IndexBuild::radix_sort) {
      EXPECT_EQ(active_order, cpu.sorted_order()) << "stable, as the CPU's";
    } else {
      for (std::uint32_t c = 0; c < grid.cell_count(); ++c) {
        std::vector<std::uint32_t> gpu_cell(order.begin() + cell_start[c], order.begin() + cell_start[c + 1]);
        std::vector<std::uint32_t> cpu_cell(cpu.sorted_order().begin() + cell_start[c],
                                            cpu.sorted_order().begin() + cell_start[c + 1]);
        std::sort(gpu_cell.begin(), gpu_cell.end());
        std::sort(cpu_cell.begin(), cpu_cell.end());
        ASSERT_EQ(gpu_cell, cpu_cell) << "cell " << c;
      }
    }
    // The slots past the active count follow, in their order with the stable radix sort.
    std::vector<std::uint32_t> inactive(order.begin() + active, order.end());
    if (build == IndexBuild::counting_sort) std::sort(inactive.begin(), inactive.end());
    for (std::uint32_t k = 0; k < inactive.size(); ++k) ASSERT_EQ(inactive[k], active + k);
  }
}

INSTANTIATE_TEST_SUITE_P(Builds, GpuCellTable,
                         ::testing::Combine(::testing::Values(1, 2),
                                            ::testing::Values(IndexBuild::radix_sort,
                                                              IndexBuild::counting_sort)),
                         [](const ::testing::TestParamInfo<std::tuple<int, IndexBuild>>& info) {
                           return std::string(std::get<0>(info.param) == 1 ? "whole_cells_" : "half_cells_") +
                                  (std::get<1>(info.param) == IndexBuild::radix_sort ? "radix_sort"
                                                                                     : "counting_sort");
                         });

}  // namespace
}  // namespace surge
