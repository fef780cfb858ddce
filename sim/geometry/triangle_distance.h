// Exact squared distance from a point to a triangle.
#pragma once

#include <algorithm>

#include "sim/core/vec.h"

namespace surge {

inline double point_segment_distance_squared(Vec3d p, Vec3d a, Vec3d b) {
  const Vec3d ab = b - a;
  const double ab2 = length_squared(ab);
  const double t = ab2 > 0.0 ? std::clamp(dot(p - a, ab) / ab2, 0.0, 1.0) : 0.0;
  return length_squared(p - (a + t * ab));
}

// The closest point is p's projection onto the plane when that lies inside the triangle (on the inner
// side of all three edges), and otherwise on the nearest edge: a triangle is convex.
inline double point_triangle_distance_squared(Vec3d p, Vec3d a, Vec3d b, Vec3d c) {
  const Vec3d n = cross(b - a, c - a);
  const double n2 = length_squared(n);
  if (n2 > 0.0 && dot(cross(b - a, p - a), n) >= 0.0 && dot(cross(c - b, p - b), n) >= 0.0 &&
      dot(cross(a - c, p - c), n) >= 0.0) {
    const double height = dot(p - a, n);
    return height * height / n2;
  }
  return std::min({point_segment_distance_squared(p, a, b), point_segment_distance_squared(p, b, c),
                   point_segment_distance_squared(p, c, a)});
}

}  // namespace surge
