// The GPU spatial index: particles ordered by cell key, with a cell_start table (guard entry last).
// Two builds, measured against each other in docs/perf/:
//
//   radix_sort     key -> cub::DeviceRadixSort::SortPairs(key, index) over the key's significant bits
//                  -> cell starts by the merge path of the sorted keys with the cell numbers: one write per
//                  cell and one read per key, however many cells are empty. Stable: the order inside a cell
//                  is the previous order, so the result is deterministic and equals the CPU's counting sort.
//   counting_sort  key + rank by atomicAdd on a per-cell counter -> cub::DeviceScan::ExclusiveSum of the
//                  counters -> scatter to start + rank. Fewer passes, but the order inside a cell
//                  depends on which thread's atomic ran first.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sim/core/device_buffer.h"
#include "sim/core/vec.h"
#include "sim/index/grid_geometry.h"
#include "sim/index/index_build.h"

namespace surge {

class GpuCellIndex {
 public:
  // d_positions: n particles in device memory. Afterwards d_sorted_order()[k] is the index (in
  // d_positions) of the k-th particle in cell order; d_cell_start() has cell_count + 1 entries.
  //
  // d_active_count (device memory, optional): only the first *d_active_count of the n particles take part
  // (an emitter's count, known on the device only). The others get the key cell_count, past every cell:
  // they sort to the end, stay in their order (radix sort) and no cell_start range holds them.
  void build(const GridGeometry& grid, const Vec4f* d_positions, std::uint32_t n, IndexBuild method,
             cudaStream_t stream, const std::uint32_t* d_active_count = nullptr);

  const std::uint32_t* d_sorted_order() const { return sorted_order_.data(); }
  const std::uint32_t* d_cell_start() const { return cell_start_.data(); }
  std::size_t device_bytes() const;

 private:
  void build_by_radix_sort(const GridGeometry& grid, const Vec4f* d_positions, std::uint32_t n,
                           cudaStream_t stream, const std::uint32_t* d_active_count);
  void build_by_counting_sort(const GridGeometry& grid, const Vec4f* d_positions, std::uint32_t n,
                              cudaStream_t stream, const std::uint32_t* d_active_count);

  DeviceBuffer<std::uint32_t> keys_, sorted_keys_;
  DeviceBuffer<std::uint32_t> identity_, sorted_order_;  // identity_ doubles as per-particle rank
  DeviceBuffer<std::uint32_t> cell_start_;               // doubles as per-cell counters
  DeviceBuffer<unsigned char> temp_storage_;             // CUB scratch, sized once and reused
};

}  // namespace surge
