// The CPU spatial index: a parallel, stable counting sort of particles by cell key.
//
//   count     each thread counts the keys of its contiguous chunk of particles
//   scan      cell_start[c] = number of particles in cells < c; each thread's offset within a cell
//             follows the threads before it, so the sort is stable (same order as a serial sort)
//   scatter   each thread writes its chunk's particle indices to their sorted places
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/vec.h"
#include "sim/index/grid_geometry.h"
#include "sim/index/neighbor_loop.h"

namespace surge {

class CpuCellIndex {
 public:
  // Sorts `positions` by cell: afterwards sorted_order()[k] is the old index of the k-th particle in
  // cell order and cell_start() delimits the cells (cell_count + 1 entries).
  void build(const GridGeometry& grid, std::span<const Vec4f> positions);

  const std::vector<std::uint32_t>& sorted_order() const { return sorted_order_; }
  const std::vector<std::uint32_t>& cell_start() const { return cell_start_; }

 private:
  std::vector<std::uint32_t> keys_;
  std::vector<std::uint32_t> thread_counts_;  // [thread][cell]
  std::vector<std::uint32_t> cell_start_;
  std::vector<std::uint32_t> sorted_order_;
};

// Reorders `values` so that values[k] = old[order[k]]; `scratch` avoids an allocation per call.
template <typename T>
void gather_in_order(std::vector<T>& values, const std::vector<std::uint32_t>& order,
                     std::vector<T>& scratch) {
  scratch.resize(values.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < std::int64_t(order.size()); ++k) scratch[k] = values[order[k]];
  values.swap(scratch);
}

}  // namespace surge
