#pragma once

namespace surge {

// How the GPU builds its cell index (sim/index/cell_index_gpu.h explains both; docs/perf/ compares them).
enum class IndexBuild { radix_sort, counting_sort };

}  // namespace surge
