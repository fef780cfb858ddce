// A sphere placed by a Transform. Only a uniform scale keeps it a sphere (whose distance is exact), so
// any other throws GeometryError: an ellipsoid has no closed-form distance.
#pragma once

#include "sim/geometry/shapes.h"
#include "sim/geometry/solid.h"
#include "sim/geometry/surface_tessellation.h"
#include "sim/geometry/transform.h"

namespace surge {

class SphereSolid final : public Solid {
 public:
  SphereSolid(const SphereShape& shape, const Transform& transform);

  bool contains(Vec3d point) const override { return length_squared(point - center_) <= radius_ * radius_; }
  double signed_distance(Vec3d point) const override { return length(point - center_) - radius_; }
  double surface_distance(Vec3d point, double) const override;
  Aabb bounds() const override;
  MassProperties mass_properties(double density) const override;
  TriangleMesh surface_mesh() const override { return sphere_surface(center_, radius_); }

 private:
  Vec3d center_;   // world [m]
  double radius_;  // scale applied [m]
};

}  // namespace surge
