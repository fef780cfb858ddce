#include <chrono>
#include <cub/device/device_scan.cuh>

#include "sim/core/cuda_launch.cuh"
#include "sim/index/neighbor_lists_gpu.h"

namespace surge {
namespace {

__global__ void count_neighbors(GridGeometry grid, CellIndexView index, const Vec4f* queries, std::uint32_t n,
                                float support2, std::uint32_t* counts) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t count = 0;
  for_each_neighbor(grid, index, xyz(queries[i]), support2, [&](std::uint32_t, Vec3f, float) { ++count; });
  counts[i] = count;
}

__global__ void fill_neighbors(GridGeometry grid, CellIndexView index, const Vec4f* queries, std::uint32_t n,
                               float support2, const std::uint32_t* start, std::uint32_t* list) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t k = start[i];
  for_each_neighbor(grid, index, xyz(queries[i]), support2,
                    [&](std::uint32_t j, Vec3f, float) { list[k++] = j; });
}

}  // namespace

void GpuNeighborLists::build(const GridGeometry& grid, const CellIndexView& index, const Vec4f* d_queries,
                             std::uint32_t n, float support2, cudaStream_t stream, TransferLedger& ledger) {
  // The cell walk only: a view that already carries lists would be read through them.
  CellIndexView cells = index;
  cells.list_start = nullptr;
  cells.list = nullptr;
  cells.list_gradient = nullptr;

  start_.resize(std::size_t(n) + 1);
  // The guard entry counts nothing: after the exclusive sum it holds the total.
  SURGE_CUDA_CHECK(cudaMemsetAsync(start_.data() + n, 0, sizeof(std::uint32_t), stream));
  launch("count_neighbors", n, stream, count_neighbors, grid, cells, d_queries, n, support2, start_.data());
  std::size_t scratch_bytes = 0;
  SURGE_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, scratch_bytes, start_.data(), start_.data(), n + 1, stream));
  scan_scratch_.resize(scratch_bytes);
  SURGE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_scratch_.data(), scratch_bytes, start_.data(),
                                                 start_.data(), n + 1, stream));

  // The list's length decides its allocation, so the host waits for it here.
  total_.resize(1);
  const auto read_start = std::chrono::steady_clock::now();
  SURGE_CUDA_CHECK(cudaMemcpyAsync(total_.data(), start_.data() + n, sizeof(std::uint32_t),
                                   cudaMemcpyDeviceToHost, stream));
  SURGE_CUDA_CHECK(cudaStreamSynchronize(stream));
  ledger.record(
      CopyDirection::device_to_host, sizeof(std::uint32_t),
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - read_start).count(),
      "neighbour list length");
  entries_ = total_.data()[0];
  // Grown by a quarter more than needed, so that a step or two of compression does not reallocate.
  if (entries_ > list_.size()) list_.resize(entries_ + entries_ / 4);
  launch("fill_neighbors", n, stream, fill_neighbors, grid, cells, d_queries, n, support2, start_.data(),
         list_.data());
}

}  // namespace surge
