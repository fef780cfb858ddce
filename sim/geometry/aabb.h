// An axis-aligned bounding box in world space [m]. Empty when min > max (the default), so growing an
// empty box by a point gives that point.
#pragma once

#include <algorithm>
#include <limits>

#include "sim/core/vec.h"

namespace surge {

struct Aabb {
  Vec3d min{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
            std::numeric_limits<double>::infinity()};
  Vec3d max{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity()};

  bool empty() const { return min.x > max.x || min.y > max.y || min.z > max.z; }
  void grow(Vec3d p) {
    min = {std::min(min.x, p.x), std::min(min.y, p.y), std::min(min.z, p.z)};
    max = {std::max(max.x, p.x), std::max(max.y, p.y), std::max(max.z, p.z)};
  }
  void grow(const Aabb& b) {
    grow(b.min);
    grow(b.max);
  }
  Aabb padded(double margin) const {
    return {min - Vec3d{margin, margin, margin}, max + Vec3d{margin, margin, margin}};
  }
  bool contains(Vec3d p) const {
    return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y && p.z >= min.z && p.z <= max.z;
  }
  Vec3d extent() const { return max - min; }
  // Squared distance from p to the box (0 inside): the lower bound a closest-point search prunes with.
  double distance_squared(Vec3d p) const {
    const double dx = std::max({min.x - p.x, 0.0, p.x - max.x});
    const double dy = std::max({min.y - p.y, 0.0, p.y - max.y});
    const double dz = std::max({min.z - p.z, 0.0, p.z - max.z});
    return dx * dx + dy * dy + dz * dz;
  }
};

}  // namespace surge
