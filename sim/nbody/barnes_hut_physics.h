// Barnes-Hut gravity on the radix tree (radix_tree.h): each internal node carries the mass, centre of mass
// and bounding box of its bodies; a body sums exact pulls from nearby bodies and one monopole pull from
// each node far enough away (Barnes & Hut 1986). Single-source: the CPU and the CUDA backends build the
// node summaries and walk the tree with these functions.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/nbody/gravity_physics.h"

namespace surge {

// What the tree knows of a group of bodies.
template <typename T>
struct NodeSummary {
  Body<T> center_of_mass;  // x: centre of mass; m: total mass
  Vec3<T> box_min, box_max;
};

template <typename T>
SURGE_HD NodeSummary<T> leaf_summary(Body<T> body) {
  return {body, body.x, body.x};
}

template <typename T>
SURGE_HD T min_of(T a, T b) {
  return a < b ? a : b;
}
template <typename T>
SURGE_HD T max_of(T a, T b) {
  return a > b ? a : b;
}

// A node from its two children: masses add, the centre of mass is the mass-weighted mean, boxes merge.
template <typename T>
SURGE_HD NodeSummary<T> merge_summaries(const NodeSummary<T>& a, const NodeSummary<T>& b) {
  NodeSummary<T> s;
  const T m = a.center_of_mass.m + b.center_of_mass.m;
  const T wa = m > T(0) ? a.center_of_mass.m / m : T(0.5);
  const T wb = T(1) - wa;
  s.center_of_mass.x = a.center_of_mass.x * wa + b.center_of_mass.x * wb;
  s.center_of_mass.m = m;
  s.box_min = {min_of(a.box_min.x, b.box_min.x), min_of(a.box_min.y, b.box_min.y),
               min_of(a.box_min.z, b.box_min.z)};
  s.box_max = {max_of(a.box_max.x, b.box_max.x), max_of(a.box_max.y, b.box_max.y),
               max_of(a.box_max.z, b.box_max.z)};
  return s;
}

// Squared distance beyond which a node's monopole stands in for its bodies:
//   r_open = l / theta + delta
// with l the longest edge of the node's box and delta the offset of the centre of mass from the box centre.
// l / theta is the classic opening angle (Barnes & Hut 1986); delta guards nodes whose mass sits to one side
// (Barnes 1994, the "r > l/theta + delta" criterion). A body inside the box is at most sqrt(3)/2 l + delta
// from the centre of mass, so for theta <= 1 (the scene's range) a node containing the body is always opened.
template <typename T>
SURGE_HD T opening_radius_squared(const NodeSummary<T>& s, T theta) {
  const Vec3<T> edge = s.box_max - s.box_min;
  const T l = max_of(edge.x, max_of(edge.y, edge.z));
  const Vec3<T> center = (s.box_min + s.box_max) * T(0.5);
  const Vec3<T> offset = s.center_of_mass.x - center;
  const T r = l / theta + std::sqrt(dot(offset, offset));
  return r * r;
}

// What a tree walk reads: the sorted bodies (leaves) and, per internal node, its monopole, its opening
// radius and its children (radix_tree.h encoding).
template <typename T>
struct BarnesHutTreeView {
  const Body<T>* bodies;            // [n] in Morton order
  const Body<T>* node_mass;         // [n - 1] centre of mass and total mass
  const T* node_open2;              // [n - 1] opening_radius_squared
  const std::int32_t* left;         // [n - 1]
  const std::int32_t* right;        // [n - 1]
  std::uint32_t count;              // n
};

// A walk's depth never exceeds the key length (63 Morton bits + 32 index bits: every level of the radix
// tree fixes at least one more bit of the augmented key), and the stack holds at most one pending sibling
// per level plus the node in hand.
inline constexpr int kTreeStackSize = 128;

template <typename T>
struct GravityAtBody {
  Vec3<T> acceleration;      // per unit G
  T potential;               // per unit G, without the body's own term; 0 unless asked for
  std::uint32_t interactions;  // body-body and body-node pulls summed
};

// Gravity on sorted body i from the whole tree. The children of an opened node are visited in order; a leaf
// is always summed exactly (and skipped for the body itself).
template <bool kWithPotential, typename T>
SURGE_HD GravityAtBody<T> barnes_hut_gravity(const BarnesHutTreeView<T>& tree, std::uint32_t i, T eps2) {
  GravityAtBody<T> out{{T(0), T(0), T(0)}, T(0), 0u};
  const Vec3<T> x_i = tree.bodies[i].x;
  if (tree.count < 2) return out;
  std::int32_t stack[kTreeStackSize];
  int depth = 0;
  stack[depth++] = 0;
  while (depth > 0) {
    const std::int32_t node = stack[--depth];
    const Body<T> monopole = tree.node_mass[node];
    const Vec3<T> r = monopole.x - x_i;
    if (dot(r, r) > tree.node_open2[node]) {
      add_pair_acceleration(x_i, monopole, eps2, out.acceleration);
      if constexpr (kWithPotential) out.potential += pair_potential(x_i, monopole, eps2);
      ++out.interactions;
      continue;
    }
    const std::int32_t children[2] = {tree.left[node], tree.right[node]};
    for (const std::int32_t child : children) {
      if (child >= 0) {
        stack[depth++] = child;
        continue;
      }
      const std::uint32_t j = std::uint32_t(~child);
      if (j == i) continue;
      const Body<T> body_j = tree.bodies[j];
      add_pair_acceleration<true>(x_i, body_j, eps2, out.acceleration);
      if constexpr (kWithPotential) out.potential += pair_potential(x_i, body_j, eps2);
      ++out.interactions;
    }
  }
  return out;
}

}  // namespace surge
