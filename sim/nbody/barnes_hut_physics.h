// Barnes-Hut gravity on the radix tree (radix_tree.h): each internal node carries the mass, centre of mass
// and bounding box of its bodies; a body sums exact pulls from nearby bodies and one monopole + quadrupole
// pull from each node far enough away (Barnes & Hut 1986). Single-source: the CPU and the CUDA backends build
// the node summaries and walk the tree with these functions.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/nbody/gravity_physics.h"

namespace surge {

// The traceless quadrupole moment of a group about its centre of mass:
//   Q_ij = sum_k m_k (3 d_i d_j - |d|^2 delta_ij),  d = x_k - centre of mass
// (the multipole expansion of the potential, e.g. Binney & Tremaine 2008, ch. 2). With it the far field of a
// node is accurate to third order in size/distance instead of second, which is what brings the tree's force
// error at an opening angle of 0.5 under 1e-3.
template <typename T>
struct Quadrupole {
  T xx, yy, zz, xy, xz, yz;
};

// What the tree knows of a group of bodies.
template <typename T>
struct NodeSummary {
  Body<T> center_of_mass;  // x: centre of mass; m: total mass
  Quadrupole<T> quadrupole;
  Vec3<T> box_min, box_max;
};

template <typename T>
SURGE_HD NodeSummary<T> leaf_summary(const Body<T>& body) {
  return {body, Quadrupole<T>{}, body.x, body.x};
}

template <typename T>
SURGE_HD T min_of(T a, T b) {
  return a < b ? a : b;
}
template <typename T>
SURGE_HD T max_of(T a, T b) {
  return a > b ? a : b;
}

// A child's quadrupole moved to the parent's centre of mass (parallel-axis theorem): Q + m (3 d d - |d|^2 I)
// with d the child's centre of mass relative to the parent's.
template <typename T>
SURGE_HD Quadrupole<T> shifted_quadrupole(const Quadrupole<T>& q, T m, Vec3<T> d) {
  const T d2 = dot(d, d);
  return {q.xx + m * (T(3) * d.x * d.x - d2), q.yy + m * (T(3) * d.y * d.y - d2),
          q.zz + m * (T(3) * d.z * d.z - d2), q.xy + m * T(3) * d.x * d.y,
          q.xz + m * T(3) * d.x * d.z,        q.yz + m * T(3) * d.y * d.z};
}

// A node from its two children: masses add, the centre of mass is the mass-weighted mean, quadrupoles add
// after moving to it, boxes merge.
template <typename T>
SURGE_HD NodeSummary<T> merge_summaries(const NodeSummary<T>& a, const NodeSummary<T>& b) {
  NodeSummary<T> s;
  const T m = a.center_of_mass.m + b.center_of_mass.m;
  const T wa = m > T(0) ? a.center_of_mass.m / m : T(0.5);
  const T wb = T(1) - wa;
  s.center_of_mass.x = a.center_of_mass.x * wa + b.center_of_mass.x * wb;
  s.center_of_mass.m = m;
  const Quadrupole<T> qa =
      shifted_quadrupole(a.quadrupole, a.center_of_mass.m, a.center_of_mass.x - s.center_of_mass.x);
  const Quadrupole<T> qb =
      shifted_quadrupole(b.quadrupole, b.center_of_mass.m, b.center_of_mass.x - s.center_of_mass.x);
  s.quadrupole = {qa.xx + qb.xx, qa.yy + qb.yy, qa.zz + qb.zz, qa.xy + qb.xy, qa.xz + qb.xz, qa.yz + qb.yz};
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

// What a tree walk needs of an internal node, in three 16-byte words (float): monopole, quadrupole, opening
// radius, and the far end of its range of sorted bodies (radix_tree.h: node c covers c..other_end or
// other_end..c).
template <typename T>
struct alignas(4 * sizeof(T)) NodeMoments {
  Body<T> monopole;  // centre of mass and total mass
  T qxx, qyy, qzz, qxy;
  T qxz, qyz, open2;  // open2: opening_radius_squared
  std::int32_t other_end;
};

template <typename T>
SURGE_HD NodeMoments<T> node_moments(const NodeSummary<T>& s, T theta, std::int32_t other_end) {
  const Quadrupole<T>& q = s.quadrupole;
  return {s.center_of_mass, q.xx, q.yy, q.zz, q.xy, q.xz, q.yz, opening_radius_squared(s, theta), other_end};
}

// The pull of a node's quadrupole on a body, per unit G, added to a (and its potential to phi): with
// r = x_i - centre of mass and |r|^2 softened like the monopole,
//   phi_Q = -(r.Q.r) / (2 |r|^5),   a_Q = -grad phi_Q = Q.r / |r|^5 - 5/2 (r.Q.r) r / |r|^7.
template <bool kWithPotential, typename T>
SURGE_HD void add_quadrupole_pull(Vec3<T> x_i, const NodeMoments<T>& node, T eps2, Vec3<T>& a, T& phi) {
  const Vec3<T> r = x_i - node.monopole.x;
  const T r2 = dot(r, r) + eps2;
  const T inverse_r = reciprocal_sqrt(r2);
  const T inverse_r2 = inverse_r * inverse_r;
  const T inverse_r5 = inverse_r2 * inverse_r2 * inverse_r;
  const Vec3<T> q_r{node.qxx * r.x + node.qxy * r.y + node.qxz * r.z,
                    node.qxy * r.x + node.qyy * r.y + node.qyz * r.z,
                    node.qxz * r.x + node.qyz * r.y + node.qzz * r.z};
  const T r_q_r = dot(r, q_r);
  a += q_r * inverse_r5 - r * (T(2.5) * r_q_r * inverse_r5 * inverse_r2);
  if constexpr (kWithPotential) phi -= T(0.5) * r_q_r * inverse_r5;
}

// What a tree walk reads: the sorted bodies (leaves) and, per internal node, its moments and children
// (radix_tree.h encoding); and how small a node must be for its bodies to be summed directly when it is too
// near to stand in for them (leaf_size, 1: open every node down to single bodies).
template <typename T>
struct BarnesHutTreeView {
  const Body<T>* bodies;        // [n] in Morton order
  const NodeMoments<T>* nodes;  // [n - 1]
  const std::int32_t* left;     // [n - 1]
  const std::int32_t* right;    // [n - 1]
  std::uint32_t count;          // n
  std::uint32_t leaf_size;      // >= 1
};

// A walk's depth never exceeds the key length (63 Morton bits + 32 index bits: every level of the radix
// tree fixes at least one more bit of the augmented key), and the stack holds at most one pending sibling
// per level plus the node in hand.
inline constexpr int kTreeStackSize = 128;

template <typename T>
struct GravityAtBody {
  Vec3<T> acceleration;        // per unit G
  T potential;                 // per unit G, without the body's own term; 0 unless asked for
  std::uint32_t interactions;  // body-body and body-node pulls summed
};

// Gravity on sorted body i from the whole tree. A node's children are tested as soon as the node is opened:
// a leaf is summed exactly (and skipped for the body itself), a far child is summed as its multipoles, a
// near child of at most leaf_size bodies has them summed exactly, one after another from the sorted array,
// and only a larger near child goes on the stack, so accepted nodes never make the round trip through it.
// Summing a small near node directly is exact where opening it would have approximated some of its parts,
// and it trades the walk's dependent node loads, tests and stack traffic through the node's subtree (up to
// leaf_size - 1 nodes) for a run of body loads that the neighbouring bodies of a warp mostly share.
template <bool kWithPotential, typename T>
SURGE_HD GravityAtBody<T> barnes_hut_gravity(const BarnesHutTreeView<T>& tree, std::uint32_t i, T eps2) {
  GravityAtBody<T> out{{T(0), T(0), T(0)}, T(0), 0u};
  const Vec3<T> x_i = tree.bodies[i].x;
  if (tree.count < 2) return out;
  const auto add_body = [&](std::uint32_t j) {
    if (j == i) return;
    const Body<T> body_j = tree.bodies[j];
    add_pair_acceleration<true>(x_i, body_j, eps2, out.acceleration);
    if constexpr (kWithPotential) out.potential += pair_potential(x_i, body_j, eps2);
    ++out.interactions;
  };
  // Pulls node `node` if it is far enough, or sums its bodies if it is small enough; says whether it must
  // be opened instead.
  const auto pulled = [&](std::int32_t node) {
    const NodeMoments<T> moments = tree.nodes[node];
    const Vec3<T> r = moments.monopole.x - x_i;
    if (dot(r, r) > moments.open2) {
      add_pair_acceleration(x_i, moments.monopole, eps2, out.acceleration);
      if constexpr (kWithPotential) out.potential += pair_potential(x_i, moments.monopole, eps2);
      add_quadrupole_pull<kWithPotential>(x_i, moments, eps2, out.acceleration, out.potential);
      ++out.interactions;
      return true;
    }
    const std::uint32_t first = std::uint32_t(min_of(node, moments.other_end));
    const std::uint32_t last = std::uint32_t(max_of(node, moments.other_end));
    if (last - first + 1 > tree.leaf_size) return false;
    for (std::uint32_t j = first; j <= last; ++j) add_body(j);
    return true;
  };
  if (pulled(0)) return out;
  std::int32_t stack[kTreeStackSize];
  int depth = 0;
  stack[depth++] = 0;
  while (depth > 0) {
    const std::int32_t node = stack[--depth];
    const std::int32_t children[2] = {tree.left[node], tree.right[node]};
    for (const std::int32_t child : children) {
      if (child < 0) {
        add_body(std::uint32_t(~child));
      } else if (!pulled(child)) {
        stack[depth++] = child;
      }
    }
  }
  return out;
}

}  // namespace surge
