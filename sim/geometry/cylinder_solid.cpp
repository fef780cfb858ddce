#include "sim/geometry/cylinder_solid.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "sim/geometry/geometry_error.h"

namespace surge {

CylinderSolid::CylinderSolid(const CylinderShape& shape, const Transform& transform)
    : rotation_(transform.rotation),
      center_(transform.translation),
      radius_(shape.radius * transform.scale.x),
      half_height_(0.5 * shape.height * transform.scale.z) {
  check_scale(transform);
  if (transform.scale.x != transform.scale.y)
    throw GeometryError("cylinder: expected equal scales on x and y (an elliptic cylinder is not supported)");
  if (!(shape.radius > 0.0) || !(shape.height > 0.0) || !std::isfinite(shape.radius) ||
      !std::isfinite(shape.height))
    throw GeometryError("cylinder: expected a radius > 0 and a height > 0");
}

double CylinderSolid::signed_distance(Vec3d point) const {
  // A 2-D box in (distance from the axis, height): beyond the side, beyond an end, or both (the rim).
  const Vec3d local = transpose(rotation_) * (point - center_);
  const double radial = std::hypot(local.x, local.y) - radius_;
  const double axial = std::abs(local.z) - half_height_;
  return std::hypot(std::max(radial, 0.0), std::max(axial, 0.0)) + std::min(std::max(radial, axial), 0.0);
}

double CylinderSolid::surface_distance(Vec3d point, double) const {
  return std::abs(signed_distance(point));
}

Aabb CylinderSolid::bounds() const {
  // Along world axis i, the axis a reaches h |a_i| and the end discs r sqrt(1 - a_i^2).
  const Vec3d axis = rotation_.column(2);
  const double* a = &axis.x;
  Vec3d reach;
  double* r = &reach.x;
  for (int i = 0; i < 3; ++i)
    r[i] = half_height_ * std::abs(a[i]) + radius_ * std::sqrt(std::max(0.0, 1.0 - a[i] * a[i]));
  return {center_ - reach, center_ + reach};
}

MassProperties CylinderSolid::mass_properties(double density) const {
  const double height = 2.0 * half_height_;
  MassProperties p;
  p.volume = std::numbers::pi * radius_ * radius_ * height;
  p.mass = density * p.volume;
  p.center_of_mass = center_;
  const double across = p.mass * (3.0 * radius_ * radius_ + height * height) / 12.0;
  p.inertia = rotate_inertia(rotation_, Mat3d::diagonal({across, across, 0.5 * p.mass * radius_ * radius_}));
  return p;
}

}  // namespace surge
