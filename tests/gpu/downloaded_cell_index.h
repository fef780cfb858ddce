// A GPU cell index of host points, built on the device and copied back for a test to check (the cell index
// tests of whole and of half cells).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/index/cell_index_gpu.h"

namespace surge {

struct DownloadedCellIndex {
  std::vector<std::uint32_t> order;       // the k-th particle in cell order is points[order[k]]
  std::vector<std::uint32_t> cell_start;  // cell_count + 1 entries
};

// active_count: only the first *active_count points take part, the count given on the device as an emitter
// gives it (GpuCellIndex::build's d_active_count); none: all of them.
inline DownloadedCellIndex build_on_device(const GridGeometry& grid, const std::vector<Vec4f>& points,
                                           IndexBuild build,
                                           std::optional<std::uint32_t> active_count = std::nullopt) {
  TransferLedger ledger;
  DeviceBuffer<Vec4f> d_points;
  copy_to_device(d_points, points, ledger, "test points");
  DeviceBuffer<std::uint32_t> d_active_count;
  if (active_count)
    copy_to_device(d_active_count, std::vector<std::uint32_t>{*active_count}, ledger, "test active count");
  GpuCellIndex index;
  index.build(grid, d_points.data(), std::uint32_t(points.size()), build, nullptr,
              active_count ? d_active_count.data() : nullptr);
  SURGE_CUDA_CHECK(cudaDeviceSynchronize());
  DownloadedCellIndex out{std::vector<std::uint32_t>(points.size()),
                          std::vector<std::uint32_t>(grid.cell_count() + 1)};
  SURGE_CUDA_CHECK(
      cudaMemcpy(out.order.data(), index.d_sorted_order(), out.order.size() * 4, cudaMemcpyDeviceToHost));
  SURGE_CUDA_CHECK(cudaMemcpy(out.cell_start.data(), index.d_cell_start(), out.cell_start.size() * 4,
                              cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace surge
