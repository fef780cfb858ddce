// The GPU's per-step neighbour lists (neighbor_lists_gpu.h) hold each query's neighbours, equal to brute
// force, in the order the cell walk visits them (so a pass through a list sums as the cell walk does), for
// queries that are the indexed particles (the fluid's lists) and for queries that are not (the fluid's wall
// lists), with whole and half cells, and stay right when a denser set makes the list grow.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/index/cell_index_gpu.h"
#include "sim/index/neighbor_lists_gpu.h"
#include "sim/index/neighbor_loop.h"

namespace surge {
namespace {

constexpr float kSupport = 0.05f;

GridGeometry test_grid(int cells_per_support) {
  GridGeometry grid;
  grid.origin = {0, 0, 0};
  grid.cells_per_support = cells_per_support;
  grid.cell_size = kSupport / float(cells_per_support);
  grid.inv_cell_size = 1.0f / grid.cell_size;
  grid.nx = 20 * cells_per_support;
  grid.ny = 12 * cells_per_support;
  grid.nz = 16 * cells_per_support;
  return grid;
}

std::vector<Vec4f> random_points(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> ux(0.0f, 1.0f), uy(0.0f, 0.6f), uz(0.0f, 0.8f);
  std::vector<Vec4f> points(count);
  for (auto& p : points) p = {ux(rng), uy(rng), uz(rng), 0};
  return points;
}

template <typename T>
std::vector<T> download(const T* d_values, std::size_t count) {
  std::vector<T> values(count);
  SURGE_CUDA_CHECK(cudaMemcpy(values.data(), d_values, count * sizeof(T), cudaMemcpyDeviceToHost));
  return values;
}

// Builds the index of `points` and the lists of `queries` in `lists` (kept between calls, as a solver keeps
// them between steps), and checks every query's list; returns the list's entries.
std::uint64_t check_lists(const GridGeometry& grid, const std::vector<Vec4f>& points,
                          const std::vector<Vec4f>& queries, GpuNeighborLists& lists) {
  TransferLedger ledger;
  DeviceBuffer<Vec4f> d_points, d_queries;
  copy_to_device(d_points, points, ledger, "test points");
  copy_to_device(d_queries, queries, ledger, "test queries");
  GpuCellIndex index;
  index.build(grid, d_points.data(), std::uint32_t(points.size()), IndexBuild::radix_sort, nullptr);
  // Particles in creation order, read through the index's sorted order: j is then an index into `points`.
  const CellIndexView on_device{d_points.data(), index.d_cell_start(), index.d_sorted_order()};
  const auto n = std::uint32_t(queries.size());
  lists.build(grid, on_device, d_queries.data(), n, kSupport * kSupport, nullptr, ledger);
  SURGE_CUDA_CHECK(cudaDeviceSynchronize());

  const std::vector<std::uint32_t> start = download(lists.d_start(), std::size_t(n) + 1);
  EXPECT_EQ(start[n], lists.entries());
  const std::vector<std::uint32_t> list = download(lists.d_list(), std::size_t(lists.entries()));
  const std::vector<std::uint32_t> cell_start = download(index.d_cell_start(), grid.cell_count() + 1);
  const std::vector<std::uint32_t> order = download(index.d_sorted_order(), points.size());
  const CellIndexView on_host{points.data(), cell_start.data(), order.data()};
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::vector<std::uint32_t> listed(list.begin() + start[i], list.begin() + start[i + 1]);
    std::vector<std::uint32_t> walked;
    for_each_neighbor(grid, on_host, xyz(queries[i]), kSupport * kSupport,
                      [&](std::uint32_t j, Vec3f, float) { walked.push_back(j); });
    if (listed != walked) {
      ADD_FAILURE() << "query " << i << ": not the cell walk's neighbours in its order";
      break;
    }
    if (i % 5 != 0) continue;  // brute force for a fifth of them
    std::vector<std::uint32_t> brute;
    for (std::uint32_t j = 0; j < points.size(); ++j)
      if (length_squared(xyz(queries[i]) - xyz(points[j])) < kSupport * kSupport) brute.push_back(j);
    std::vector<std::uint32_t> sorted = listed;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != brute) {
      ADD_FAILURE() << "query " << i << ": " << sorted.size() << " listed, " << brute.size()
                    << " by brute force";
      break;
    }
  }
  // The host read the list's length and nothing else.
  const auto entries = ledger.entries();
  std::size_t read_back = 0;
  for (const auto& [key, entry] : entries)
    if (key.first == CopyDirection::device_to_host) {
      EXPECT_EQ(key.second, "neighbour list length");
      read_back += entry.bytes;
    }
  EXPECT_EQ(read_back, sizeof(std::uint32_t));
  return lists.entries();
}

class GpuNeighborListsTest : public ::testing::TestWithParam<int> {};

TEST_P(GpuNeighborListsTest, HoldTheCellWalksNeighboursInItsOrder) {
  const GridGeometry grid = test_grid(GetParam());
  GpuNeighborLists lists;
  const std::vector<Vec4f> sparse = random_points(20000, 5);
  const std::uint64_t sparse_entries = check_lists(grid, sparse, sparse, lists);
  // Three times denser: the list must grow past the quarter it keeps in reserve.
  const std::vector<Vec4f> dense = random_points(60000, 6);
  const std::uint64_t dense_entries = check_lists(grid, dense, dense, lists);
  // Queries that are not the indexed particles (a fluid's wall lists), fewer than the last build's.
  const std::uint64_t other_entries = check_lists(grid, sparse, random_points(5000, 7), lists);
  std::printf("cells per support %d: %llu, %llu and %llu entries\n", GetParam(),
              static_cast<unsigned long long>(sparse_entries), static_cast<unsigned long long>(dense_entries),
              static_cast<unsigned long long>(other_entries));
  // 20000 points in 0.48 m^3, a support of 0.05 m: about 22 neighbours each with the point itself.
  EXPECT_GT(sparse_entries, 20000u * 15u);
  EXPECT_GT(dense_entries, 8 * sparse_entries);
}

INSTANTIATE_TEST_SUITE_P(CellsPerSupport, GpuNeighborListsTest, ::testing::Values(1, 2));

}  // namespace
}  // namespace surge
