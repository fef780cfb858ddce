#include "sim/geometry/box_solid.h"

#include <algorithm>
#include <cmath>

#include "sim/geometry/geometry_error.h"

namespace surge {

BoxSolid::BoxSolid(const BoxShape& shape, const Transform& transform) : rotation_(transform.rotation) {
  check_scale(transform);
  const Vec3d& s = transform.scale;
  const Vec3d lo{s.x * shape.min.x, s.y * shape.min.y, s.z * shape.min.z};
  const Vec3d hi{s.x * shape.max.x, s.y * shape.max.y, s.z * shape.max.z};
  half_size_ = 0.5 * (hi - lo);
  if (!(half_size_.x > 0.0 && half_size_.y > 0.0 && half_size_.z > 0.0))
    throw GeometryError("box: expected max > min on every axis");
  center_ = transform.rotation * (0.5 * (lo + hi)) + transform.translation;
}

double BoxSolid::signed_distance(Vec3d point) const {
  // In the box's frame, centred: q is how far beyond each pair of faces the point lies (negative inside).
  const Vec3d local = transpose(rotation_) * (point - center_);
  const Vec3d q{std::abs(local.x) - half_size_.x, std::abs(local.y) - half_size_.y,
                std::abs(local.z) - half_size_.z};
  const Vec3d outside{std::max(q.x, 0.0), std::max(q.y, 0.0), std::max(q.z, 0.0)};
  return length(outside) + std::min(std::max({q.x, q.y, q.z}), 0.0);
}

double BoxSolid::surface_distance(Vec3d point, double) const {
  return std::abs(signed_distance(point));
}

Aabb BoxSolid::bounds() const {
  // The rotated box's half extent along world axis i is sum_j |R_ij| h_j.
  Vec3d reach;
  double* r = &reach.x;
  for (int i = 0; i < 3; ++i)
    r[i] = std::abs(rotation_.m[i][0]) * half_size_.x + std::abs(rotation_.m[i][1]) * half_size_.y +
           std::abs(rotation_.m[i][2]) * half_size_.z;
  return {center_ - reach, center_ + reach};
}

MassProperties BoxSolid::mass_properties(double density) const {
  const Vec3d e = 2.0 * half_size_;
  MassProperties p;
  p.volume = e.x * e.y * e.z;
  p.mass = density * p.volume;
  p.center_of_mass = center_;
  const double k = p.mass / 12.0;
  p.inertia =
      rotate_inertia(rotation_, Mat3d::diagonal({k * (e.y * e.y + e.z * e.z), k * (e.x * e.x + e.z * e.z),
                                                 k * (e.x * e.x + e.y * e.y)}));
  return p;
}

}  // namespace surge
