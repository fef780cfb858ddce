#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "sim/core/cuda_launch.cuh"
#include "sim/index/cell_index_gpu.h"

namespace surge {

namespace {

// The cell key of particle i, or cell_count (past every cell) for a slot beyond the active count.
__device__ __forceinline__ std::uint32_t key_or_past(const GridGeometry& grid, const Vec4f* positions,
                                                     std::uint32_t i, const std::uint32_t* active_count) {
  if (active_count != nullptr && i >= *active_count) return grid.cell_count();
  return grid.key_of(xyz(positions[i]));
}

__global__ void compute_keys(GridGeometry grid, const Vec4f* __restrict__ positions, std::uint32_t n,
                             const std::uint32_t* active_count, std::uint32_t* __restrict__ keys /* out */,
                             std::uint32_t* __restrict__ identity /* out */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  keys[i] = key_or_past(grid, positions, i, active_count);
  identity[i] = i;
}

// Slots past the active count are counted in the guard entry counts[cell_count]; the exclusive scan leaves
// them out of every cell and places them after all active particles.
__global__ void count_cells(GridGeometry grid, const Vec4f* __restrict__ positions, std::uint32_t n,
                            const std::uint32_t* active_count, std::uint32_t* __restrict__ keys /* out */,
                            std::uint32_t* __restrict__ rank /* out */,
                            std::uint32_t* __restrict__ counts /* in, out */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t key = key_or_past(grid, positions, i, active_count);
  keys[i] = key;
  rank[i] = atomicAdd(&counts[key], 1u);
}

__global__ void scatter_by_cell(const std::uint32_t* __restrict__ keys,
                                const std::uint32_t* __restrict__ rank,
                                const std::uint32_t* __restrict__ cell_start, std::uint32_t n,
                                std::uint32_t* __restrict__ sorted_order /* out */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sorted_order[cell_start[keys[i]] + rank[i]] = i;
}

}  // namespace

void GpuCellIndex::build(const GridGeometry& grid, const Vec4f* d_positions, std::uint32_t n,
                         IndexBuild method, cudaStream_t stream, const std::uint32_t* d_active_count) {
  keys_.resize(n);
  identity_.resize(n);
  sorted_order_.resize(n);
  cell_start_.resize(std::size_t(grid.cell_count()) + 1);
  if (n == 0) {
    SURGE_CUDA_CHECK(cudaMemsetAsync(cell_start_.data(), 0, cell_start_.bytes(), stream));
    return;
  }
  if (method == IndexBuild::radix_sort)
    build_by_radix_sort(grid, d_positions, n, stream, d_active_count);
  else
    build_by_counting_sort(grid, d_positions, n, stream, d_active_count);
}

void GpuCellIndex::build_by_radix_sort(const GridGeometry& grid, const Vec4f* d_positions, std::uint32_t n,
                                       cudaStream_t stream, const std::uint32_t* d_active_count) {
  sorted_keys_.resize(n);
  compute_keys<<<blocks_for(n), kBlock, 0, stream>>>(grid, d_positions, n, d_active_count, keys_.data(),
                                                     identity_.data());
  SURGE_CUDA_CHECK_LAUNCH("compute_keys");
  // The key past every cell (cell_count) may need one bit more than the largest cell key.
  int end_bit = grid.key_bits();
  if (d_active_count != nullptr && (grid.cell_count() >> end_bit) != 0u) ++end_bit;
  std::size_t temp_bytes = 0;
  SURGE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_.data(), sorted_keys_.data(),
                                                   identity_.data(), sorted_order_.data(), n, 0, end_bit,
                                                   stream));
  temp_storage_.resize(temp_bytes);
  SURGE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_storage_.data(), temp_bytes, keys_.data(),
                                                   sorted_keys_.data(), identity_.data(),
                                                   sorted_order_.data(), n, 0, end_bit, stream));
  // cell_start[c] = first k with sorted_key[k] >= c, for every cell and the guard: one binary search
  // per cell, so long runs of empty cells cost no more than occupied ones.
  thrust::lower_bound(thrust::cuda::par_nosync.on(stream), sorted_keys_.data(), sorted_keys_.data() + n,
                      thrust::counting_iterator<std::uint32_t>(0),
                      thrust::counting_iterator<std::uint32_t>(grid.cell_count() + 1), cell_start_.data());
  SURGE_CUDA_CHECK_LAUNCH("thrust::lower_bound");
}

void GpuCellIndex::build_by_counting_sort(const GridGeometry& grid, const Vec4f* d_positions, std::uint32_t n,
                                          cudaStream_t stream, const std::uint32_t* d_active_count) {
  // The counters live in cell_start_ itself; the scan turns them into starts in place, and the
  // zeroed guard entry becomes the total n.
  const std::uint32_t cells = grid.cell_count();
  SURGE_CUDA_CHECK(cudaMemsetAsync(cell_start_.data(), 0, cell_start_.bytes(), stream));
  count_cells<<<blocks_for(n), kBlock, 0, stream>>>(grid, d_positions, n, d_active_count, keys_.data(),
                                                    identity_.data(), cell_start_.data());
  SURGE_CUDA_CHECK_LAUNCH("count_cells");
  std::size_t temp_bytes = 0;
  SURGE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, cell_start_.data(), cell_start_.data(),
                                                 cells + 1, stream));
  temp_storage_.resize(temp_bytes);
  SURGE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_storage_.data(), temp_bytes, cell_start_.data(),
                                                 cell_start_.data(), cells + 1, stream));
  scatter_by_cell<<<blocks_for(n), kBlock, 0, stream>>>(keys_.data(), identity_.data(), cell_start_.data(), n,
                                                        sorted_order_.data());
  SURGE_CUDA_CHECK_LAUNCH("scatter_by_cell");
}

std::size_t GpuCellIndex::device_bytes() const {
  return keys_.bytes() + sorted_keys_.bytes() + identity_.bytes() + sorted_order_.bytes() +
         cell_start_.bytes() + temp_storage_.bytes();
}

}  // namespace surge
