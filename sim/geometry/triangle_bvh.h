// A bounding volume hierarchy over a mesh's triangles: what makes a closest-point query and a ray's
// crossings cost about log(n) triangle tests instead of n. Built once (a solid never changes shape);
// median split on the longest axis of the triangles' centroids, up to kLeafSize triangles a leaf.
//
// Nodes live in one array in depth-first order: a node's first child is the next node, the second child
// is at `second_child`. Leaves hold a range [first, first + count) of the triangles, which the BVH keeps
// in its own order.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/geometry/aabb.h"
#include "sim/geometry/triangle_mesh.h"

namespace surge {

struct Triangle {
  Vec3d a, b, c;
};

class TriangleBvh {
 public:
  static constexpr std::uint32_t kLeafSize = 4;

  TriangleBvh() = default;
  explicit TriangleBvh(const TriangleMesh& mesh);

  const std::vector<Triangle>& triangles() const { return triangles_; }
  Aabb bounds() const { return nodes_.empty() ? Aabb{} : nodes_.front().box; }

  // Squared distance from p to the nearest triangle when it is at most limit_squared, else infinity.
  double closest_distance_squared(Vec3d p, double limit_squared) const;

  // Calls visit(triangle) for every triangle whose (padded) box the ray origin + t direction, t >= 0,
  // meets; the caller decides what a crossing is.
  template <typename Visit>
  void for_each_along_ray(Vec3d origin, Vec3d direction, Visit&& visit) const;

 private:
  struct Node {
    Aabb box;  // padded a little (see the constructor) so that a ray grazing a box still visits it
    std::uint32_t first = 0, count = 0;  // leaf: its triangles; count == 0 for an inner node
    std::uint32_t second_child = 0;
  };
  std::uint32_t build(std::vector<Triangle>& pool, std::uint32_t first, std::uint32_t count);
  static bool ray_meets_box(const Aabb& box, Vec3d origin, Vec3d direction);

  std::vector<Triangle> triangles_;
  std::vector<Node> nodes_;
  double pad_ = 0.0;
};

template <typename Visit>
void TriangleBvh::for_each_along_ray(Vec3d origin, Vec3d direction, Visit&& visit) const {
  if (nodes_.empty()) return;
  std::uint32_t stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const std::uint32_t index = stack[--top];
    const Node& node = nodes_[index];
    if (!ray_meets_box(node.box, origin, direction)) continue;
    if (node.count > 0) {
      for (std::uint32_t t = node.first; t < node.first + node.count; ++t) visit(triangles_[t]);
    } else {
      stack[top++] = node.second_child;
      stack[top++] = index + 1;
    }
  }
}

}  // namespace surge
