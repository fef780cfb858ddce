#include "sim/geometry/triangle_bvh.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "sim/geometry/triangle_distance.h"

namespace surge {

namespace {

Vec3d centroid(const Triangle& t) {
  return (1.0 / 3.0) * (t.a + t.b + t.c);
}

double component(Vec3d v, int axis) {
  return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

}  // namespace

TriangleBvh::TriangleBvh(const TriangleMesh& mesh) {
  std::vector<Triangle> pool;
  pool.reserve(mesh.triangles.size());
  Aabb all;
  for (const auto& t : mesh.triangles) {
    pool.push_back({mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]});
    all.grow(pool.back().a);
    all.grow(pool.back().b);
    all.grow(pool.back().c);
  }
  if (pool.empty()) return;
  // The crossing test calls a ray "too close to an edge to tell" within about 1e-10 of the mesh's size;
  // boxes padded by far more than that never hide such a triangle from the ray.
  const Vec3d e = all.extent();
  pad_ = 1e-7 * std::max({e.x, e.y, e.z, 1e-30});
  nodes_.reserve(2 * pool.size() / kLeafSize + 1);
  build(pool, 0, std::uint32_t(pool.size()));
  triangles_ = std::move(pool);
}

std::uint32_t TriangleBvh::build(std::vector<Triangle>& pool, std::uint32_t first, std::uint32_t count) {
  const auto index = std::uint32_t(nodes_.size());
  nodes_.emplace_back();
  Aabb box, centres;
  for (std::uint32_t t = first; t < first + count; ++t) {
    box.grow(pool[t].a);
    box.grow(pool[t].b);
    box.grow(pool[t].c);
    centres.grow(centroid(pool[t]));
  }
  nodes_[index].box = box.padded(pad_);
  if (count <= kLeafSize) {
    nodes_[index].first = first;
    nodes_[index].count = count;
    return index;
  }
  const Vec3d spread = centres.extent();
  const int axis = spread.x >= spread.y && spread.x >= spread.z ? 0 : (spread.y >= spread.z ? 1 : 2);
  const std::uint32_t half = count / 2;
  std::nth_element(pool.begin() + first, pool.begin() + first + half, pool.begin() + first + count,
                   [axis](const Triangle& l, const Triangle& r) {
                     return component(centroid(l), axis) < component(centroid(r), axis);
                   });
  build(pool, first, half);
  const std::uint32_t second = build(pool, first + half, count - half);
  nodes_[index].second_child = second;
  return index;
}

double TriangleBvh::closest_distance_squared(Vec3d p, double limit_squared) const {
  double best = limit_squared;
  bool found = false;
  if (nodes_.empty()) return std::numeric_limits<double>::infinity();
  std::uint32_t stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    if (node.box.distance_squared(p) > best) continue;
    if (node.count > 0) {
      for (std::uint32_t t = node.first; t < node.first + node.count; ++t) {
        const Triangle& tri = triangles_[t];
        const double d2 = point_triangle_distance_squared(p, tri.a, tri.b, tri.c);
        if (d2 <= best) best = d2, found = true;
      }
      continue;
    }
    // Nearer child last, so it is searched first and prunes the other.
    const std::uint32_t first_child = std::uint32_t(&node - nodes_.data()) + 1,
                        second_child = node.second_child;
    const bool first_nearer =
        nodes_[first_child].box.distance_squared(p) <= nodes_[second_child].box.distance_squared(p);
    stack[top++] = first_nearer ? second_child : first_child;
    stack[top++] = first_nearer ? first_child : second_child;
  }
  return found ? best : std::numeric_limits<double>::infinity();
}

bool TriangleBvh::ray_meets_box(const Aabb& box, Vec3d origin, Vec3d direction) {
  // Slabs: the ray's parameter range inside each pair of planes, intersected with t >= 0. A direction
  // component of zero (the axis rays) is a test on the origin's coordinate instead of a division by 0.
  double t_near = 0.0, t_far = std::numeric_limits<double>::infinity();
  const double o[3] = {origin.x, origin.y, origin.z}, d[3] = {direction.x, direction.y, direction.z};
  const double lo[3] = {box.min.x, box.min.y, box.min.z}, hi[3] = {box.max.x, box.max.y, box.max.z};
  for (int axis = 0; axis < 3; ++axis) {
    if (d[axis] == 0.0) {
      if (o[axis] < lo[axis] || o[axis] > hi[axis]) return false;
      continue;
    }
    double t0 = (lo[axis] - o[axis]) / d[axis], t1 = (hi[axis] - o[axis]) / d[axis];
    if (t0 > t1) std::swap(t0, t1);
    t_near = std::max(t_near, t0);
    t_far = std::min(t_far, t1);
    if (t_near > t_far) return false;
  }
  return true;
}

}  // namespace surge
