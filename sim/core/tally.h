// Counts a loop body reports for the host to read later, added up where the loop runs (the executors'
// for_each_tallied): two sums and a largest value of non-negative integers, so the totals do not depend
// on the order the items are visited in, and on the GPU they fuse into the pass that produces them (block
// sums in shared memory, one atomic per block) instead of costing a reduction pass of their own.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/ordered_bits.h"

namespace surge {

// What one item adds.
struct Tally {
  std::uint32_t sum_a = 0, sum_b = 0;  // added over the items
  std::uint32_t max = 0;               // the largest over the items
};

// What the items added, in the executor's memory (a device buffer on the GPU); for_each_tallied adds to
// it, so a pass that starts a tally zeroes it first.
struct TallyTotals {
  unsigned long long sum_a = 0, sum_b = 0;
  unsigned int max = 0;
};

}  // namespace surge
