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

// The cell starts from the sorted keys by their merge path with the cell numbers (Green, McColl & Bader 2012,
// "GPU Merge Path"): cell_start[c] = number of keys below c, for every cell c and the guard c = cell_count.
// Merge the n sorted keys with the cell numbers 0..cell_count, a cell number ahead of a key equal to it:
//
//   sorted keys   [0 0 2 2 2 3]       merged   c0 k0 k0 c1 c2 k2 k2 k2 c3 k3 c4
//   cell numbers  [0 1 2 3 4]         keys passed before each cell = [0, 2, 2, 5, 6] = cell_start
//
// Each thread takes kMergeItemsPerThread consecutive items of the merged sequence: one binary search along
// its diagonal finds how many cells and keys come before them, then it walks them, writing a cell's start
// when it reaches the cell and passing over a key. A cell costs one write and a key one read, plus a binary
// search per 15 items, where a binary search per cell (thrust::lower_bound, before) cost log2(n) dependent
// reads for every cell, empty ones included: 8x the cells with half cells. The block stages its cells' starts
// in shared memory so that they leave in whole lines; an odd item count per thread keeps a warp's staging
// writes on distinct banks where its items are all cells (the empty stretches).
constexpr int kMergeItemsPerThread = 15;
constexpr int kMergeTile = kBlock * kMergeItemsPerThread;  // merged items per block

// Cells before diagonal d of the merged sequence (items before it: d = cells + keys passed). The smallest c
// whose last passed key, sorted_keys[d - c - 1], is below c: all passed keys are below all unreached cells.
__device__ std::uint32_t cells_before_diagonal(const std::uint32_t* __restrict__ sorted_keys, std::uint32_t n,
                                               std::uint32_t cells_and_guard, std::uint64_t d) {
  std::uint32_t low = d > n ? std::uint32_t(d - n) : 0u;
  std::uint32_t high = std::uint32_t(d < cells_and_guard ? d : cells_and_guard);
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    if (sorted_keys[d - middle - 1] < middle)
      high = middle;
    else
      low = middle + 1;
  }
  return low;
}

__global__ void __launch_bounds__(kBlock)
    cell_starts_by_merge_path(const std::uint32_t* __restrict__ sorted_keys, std::uint32_t n,
                              std::uint32_t cells_and_guard,
                              std::uint32_t* __restrict__ cell_start /* out */) {
  __shared__ std::uint32_t tile_starts[kMergeTile];
  __shared__ std::uint32_t tile_first_cell, tile_end_cell;
  const std::uint64_t total = std::uint64_t(n) + cells_and_guard;
  const std::uint64_t first = (std::uint64_t(blockIdx.x) * kBlock + threadIdx.x) * kMergeItemsPerThread;
  const bool walks = first < total;  // every block's thread 0 does
  std::uint32_t c = walks ? cells_before_diagonal(sorted_keys, n, cells_and_guard, first) : 0u;
  if (threadIdx.x == 0) {
    tile_first_cell = c;
    tile_end_cell = c;
  }
  __syncthreads();
  if (walks) {
    const std::uint32_t items =
        std::uint32_t(total - first < kMergeItemsPerThread ? total - first : kMergeItemsPerThread);
    std::uint32_t k = std::uint32_t(first - c);
    // Past the last key, every remaining item is a cell: a key above every cell number stands for none.
    std::uint32_t key = k < n ? sorted_keys[k] : 0xFFFFFFFFu;
    for (std::uint32_t item = 0; item < items; ++item) {
      if (c < cells_and_guard && c <= key) {
        tile_starts[c - tile_first_cell] = k;
        ++c;
      } else {
        ++k;
        key = k < n ? sorted_keys[k] : 0xFFFFFFFFu;
      }
    }
    atomicMax(&tile_end_cell, c);
  }
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < tile_end_cell - tile_first_cell; i += kBlock)
    cell_start[tile_first_cell + i] = tile_starts[i];
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
  const std::uint32_t cells_and_guard = grid.cell_count() + 1;
  const std::uint64_t merged_items = std::uint64_t(n) + cells_and_guard;
  cell_starts_by_merge_path<<<unsigned((merged_items + kMergeTile - 1) / kMergeTile), kBlock, 0, stream>>>(
      sorted_keys_.data(), n, cells_and_guard, cell_start_.data());
  SURGE_CUDA_CHECK_LAUNCH("cell_starts_by_merge_path");
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
