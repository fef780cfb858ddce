// Barnes-Hut on the CPU: the same radix tree and tree walk as the GPU (barnes_hut_physics.h), built with
// std::sort and OpenMP. It is the CPU backend's barnes_hut method and the reference the GPU tree is tested
// against; the scalar type is a template parameter so a test can compare float with float.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/nbody/barnes_hut_physics.h"

namespace surge {

template <typename T>
struct GravityField {
  std::vector<Vec3<T>> acceleration;  // per body, in the caller's order, including G
  std::vector<T> potential;           // per body, including G; empty unless asked for
  std::uint64_t interactions = 0;     // pulls summed over all bodies
};

template <typename T>
class CpuBarnesHut {
 public:
  // Gravity on every body; theta in (0, 1], leaf_size as in BarnesHutTreeView: build() then gravity().
  void compute(const std::vector<Body<T>>& bodies, T gravitational_constant, T softening, T theta,
               std::uint32_t leaf_size, bool with_potential, GravityField<T>& out);
  // The tree of `bodies` (Morton sort, radix tree, node summaries), which keep their order: the n-body
  // solver times it as its index stage, apart from the walk.
  void build(const std::vector<Body<T>>& bodies, T theta);
  // Gravity on the bodies of the last build(), in their order.
  void gravity(T gravitational_constant, T softening, std::uint32_t leaf_size, bool with_potential,
               GravityField<T>& out) const;

  // The tree of the last compute(), for tests.
  const std::vector<Body<T>>& sorted_bodies() const { return sorted_; }
  const std::vector<std::int32_t>& left() const { return left_; }
  const std::vector<std::int32_t>& right() const { return right_; }
  const std::vector<NodeMoments<T>>& nodes() const { return nodes_; }

 private:
  void sort_by_morton_code(const std::vector<Body<T>>& bodies);
  void build_nodes(T theta);

  std::vector<std::uint32_t> order_;  // order_[k]: caller's index of sorted body k
  std::vector<std::uint64_t> codes_;
  std::vector<Body<T>> sorted_;
  std::vector<std::int32_t> left_, right_, internal_parent_, leaf_parent_, other_end_, visits_;
  std::vector<NodeSummary<T>> summary_;
  std::vector<NodeMoments<T>> nodes_;
};

// Exact all-pairs gravity (including G), OpenMP over bodies: the reference everything else is checked
// against. Skips j = i, so softening 0 is allowed.
template <typename T>
void all_pairs_gravity(const std::vector<Body<T>>& bodies, T gravitational_constant, T softening,
                       bool with_potential, GravityField<T>& out);

}  // namespace surge
