// Per-step neighbour lists on the GPU, in the CSR form CellIndexView reads (neighbor_loop.h): the candidates
// of query i are list[start[i] .. start[i+1]), in the order the cell search visits them, so a pass through
// the lists sums its pairs in the same order as the cell walk and gives the same bits.
//
// For the iterative solvers (DFSPH visits each neighbourhood about twelve times a step, PBF eight or more):
// one cell search builds the lists, and every other pass of the step reads ~30 listed neighbours instead of
// testing the ~200 candidates of 27 cells (or ~80 of half cells). Built in two cell searches, count then
// fill, with CUB's exclusive sum between them; the total is read back to size the list (one 4-byte read a
// step, recorded in the ledger). The list grows by a quarter beyond what it needs and never shrinks.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sim/core/device_buffer.h"
#include "sim/core/pinned_buffer.h"
#include "sim/core/transfer_ledger.h"
#include "sim/index/grid_geometry.h"
#include "sim/index/neighbor_loop.h"

namespace surge {

class GpuNeighborLists {
 public:
  // The lists of the n queries at d_queries (device memory) among the particles of `index` within
  // sqrt(support2).
  void build(const GridGeometry& grid, const CellIndexView& index, const Vec4f* d_queries, std::uint32_t n,
             float support2, cudaStream_t stream, TransferLedger& ledger);

  const std::uint32_t* d_start() const { return start_.data(); }
  const std::uint32_t* d_list() const { return list_.data(); }
  std::uint64_t entries() const { return entries_; }

 private:
  DeviceBuffer<std::uint32_t> start_;  // n + 1 entries: counts, then their exclusive sum
  DeviceBuffer<std::uint32_t> list_;
  DeviceBuffer<unsigned char> scan_scratch_;
  PinnedBuffer<std::uint32_t> total_;
  std::uint64_t entries_ = 0;
};

}  // namespace surge
