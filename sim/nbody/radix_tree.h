// The binary radix tree over sorted Morton codes of Karras (2012), "Maximizing parallelism in the
// construction of BVHs, octrees, and k-d trees", sec. 4 and Fig. 4: internal node i of n - 1 is found
// independently of all others, so the whole tree is built in one parallel pass.
//
// Leaves are the n sorted bodies; internal node 0 is the root. Internal node i covers a contiguous range of
// leaves with i at one end (Karras, sec. 4); other_end keeps the other, so a walk can sum a small node's
// bodies directly. A child index c >= 0 is internal node c;
// c < 0 is leaf ~c (body ~c in sorted order). For codes 0b00001, 0b00010, 0b00100, 0b00101, 0b10011,
// 0b11000, 0b11001, 0b11110 the root splits between leaves 3 and 4 (first differing bit).
#pragma once

#include <cstdint>

#include "sim/core/hd.h"

#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

namespace surge {

struct RadixTreeView {
  std::int32_t* left;             // [n - 1] left child of each internal node
  std::int32_t* right;            // [n - 1] right child
  std::int32_t* internal_parent;  // [n - 1] parent of each internal node; -1 for the root
  std::int32_t* leaf_parent;      // [n] parent of each leaf
  std::int32_t* other_end;        // [n - 1] the end of internal node i's leaf range that is not i itself
};

SURGE_HD int leading_zeros(std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(v));
#else
  return std::countl_zero(v);
#endif
}
SURGE_HD int leading_zeros(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(v));
#else
  return std::countl_zero(v);
#endif
}

// delta(i, j): length of the common prefix of keys i and j, -1 outside [0, n). Equal codes are told apart
// by their indices (Karras, sec. 4: "augment each key with its index"), so every key is distinct.
SURGE_HD int common_prefix(const std::uint64_t* codes, std::int64_t n, std::int64_t i, std::int64_t j) {
  if (j < 0 || j >= n) return -1;
  const std::uint64_t a = codes[i], b = codes[j];
  if (a != b) return leading_zeros(a ^ b);
  return 64 + leading_zeros(static_cast<std::uint32_t>(i) ^ static_cast<std::uint32_t>(j));
}

// Internal node i (0 <= i < n - 1): its key range, its split and so its two children (Karras, Fig. 4).
SURGE_HD void build_radix_tree_node(const std::uint64_t* codes, std::int64_t n, std::int64_t i,
                                    RadixTreeView tree) {
  // Direction of the range: towards the neighbour sharing the longer prefix.
  const std::int64_t d = common_prefix(codes, n, i, i + 1) > common_prefix(codes, n, i, i - 1) ? 1 : -1;
  // Upper bound of the range's length, then its exact other end j by binary search.
  const int delta_min = common_prefix(codes, n, i, i - d);
  std::int64_t l_max = 2;
  while (common_prefix(codes, n, i, i + l_max * d) > delta_min) l_max *= 2;
  std::int64_t l = 0;
  for (std::int64_t t = l_max / 2; t >= 1; t /= 2)
    if (common_prefix(codes, n, i, i + (l + t) * d) > delta_min) l += t;
  const std::int64_t j = i + l * d;
  // The split: the last key sharing more than the range's common prefix with key i.
  const int delta_node = common_prefix(codes, n, i, j);
  std::int64_t s = 0;
  for (std::int64_t divisor = 2;; divisor *= 2) {
    const std::int64_t t = (l + divisor - 1) / divisor;
    if (common_prefix(codes, n, i, i + (s + t) * d) > delta_node) s += t;
    if (t <= 1) break;
  }
  const std::int64_t gamma = i + s * d + (d < 0 ? -1 : 0);
  const std::int64_t first = i < j ? i : j, last = i < j ? j : i;
  const std::int32_t left = first == gamma ? ~std::int32_t(gamma) : std::int32_t(gamma);
  const std::int32_t right = last == gamma + 1 ? ~std::int32_t(gamma + 1) : std::int32_t(gamma + 1);
  tree.left[i] = left;
  tree.right[i] = right;
  tree.other_end[i] = std::int32_t(j);
  (left < 0 ? tree.leaf_parent[~left] : tree.internal_parent[left]) = std::int32_t(i);
  (right < 0 ? tree.leaf_parent[~right] : tree.internal_parent[right]) = std::int32_t(i);
  if (i == 0) tree.internal_parent[0] = -1;
}

}  // namespace surge
