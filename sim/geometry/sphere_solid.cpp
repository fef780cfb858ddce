#include "sim/geometry/sphere_solid.h"

#include <cmath>
#include <numbers>

#include "sim/geometry/geometry_error.h"

namespace surge {

SphereSolid::SphereSolid(const SphereShape& shape, const Transform& transform)
    : center_(transform.translation), radius_(shape.radius * transform.scale.x) {
  check_scale(transform);
  if (!transform.uniform_scale())
    throw GeometryError("sphere: expected a uniform scale (an ellipsoid is not supported)");
  if (!(shape.radius > 0.0) || !std::isfinite(shape.radius))
    throw GeometryError("sphere: expected a radius > 0");
}

double SphereSolid::surface_distance(Vec3d point, double) const {
  return std::abs(signed_distance(point));
}

Aabb SphereSolid::bounds() const {
  const Vec3d r{radius_, radius_, radius_};
  return {center_ - r, center_ + r};
}

MassProperties SphereSolid::mass_properties(double density) const {
  MassProperties p;
  p.volume = 4.0 / 3.0 * std::numbers::pi * radius_ * radius_ * radius_;
  p.mass = density * p.volume;
  p.center_of_mass = center_;
  const double i = 0.4 * p.mass * radius_ * radius_;
  p.inertia = Mat3d::diagonal({i, i, i});
  return p;
}

}  // namespace surge
