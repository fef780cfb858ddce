#include "sim/index/cell_index_cpu.h"

#include <omp.h>

#include <numeric>

namespace surge {

void CpuCellIndex::build(const GridGeometry& grid, std::span<const Vec4f> positions) {
  const std::int64_t n = std::int64_t(positions.size());
  const std::uint32_t cells = grid.cell_count();
  const int threads = omp_get_max_threads();
  keys_.resize(n);
  thread_counts_.assign(std::size_t(threads) * cells, 0u);
  cell_start_.assign(cells + 1, 0u);
  sorted_order_.resize(n);

#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const std::int64_t first = n * t / threads, last = n * (t + 1) / threads;
    std::uint32_t* counts = thread_counts_.data() + std::size_t(t) * cells;
    // count
    for (std::int64_t i = first; i < last; ++i) {
      keys_[i] = grid.key_of(xyz(positions[i]));
      ++counts[keys_[i]];
    }
#pragma omp barrier
    // scan: cells split among threads; each cell's total and the per-thread offsets inside it
#pragma omp for schedule(static)
    for (std::int64_t c = 0; c < std::int64_t(cells); ++c) {
      std::uint32_t total = 0;
      for (int u = 0; u < threads; ++u) {
        std::uint32_t& count = thread_counts_[std::size_t(u) * cells + c];
        const std::uint32_t offset = total;
        total += count;
        count = offset;  // from here on: thread u's first slot within cell c
      }
      cell_start_[c + 1] = total;
    }
#pragma omp single
    std::inclusive_scan(cell_start_.begin(), cell_start_.end(), cell_start_.begin());
    // scatter (the implicit barrier after `single` orders it after the scan)
    for (std::int64_t i = first; i < last; ++i) {
      const std::uint32_t key = keys_[i];
      sorted_order_[cell_start_[key] + counts[key]++] = std::uint32_t(i);
    }
  }
}

}  // namespace surge
