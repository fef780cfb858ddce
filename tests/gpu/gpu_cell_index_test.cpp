// The GPU cell index (both builds) gives the CPU's neighbour sets, equal to brute force.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "sim/core/device_buffer.h"
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

}  // namespace
}  // namespace surge
