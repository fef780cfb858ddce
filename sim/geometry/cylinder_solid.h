// A closed cylinder (axis along local z) placed by a Transform. The scale may stretch the axis (z) but
// must be equal on x and y, which would otherwise make an elliptic cylinder with no closed-form distance.
#pragma once

#include "sim/geometry/shapes.h"
#include "sim/geometry/solid.h"
#include "sim/geometry/surface_tessellation.h"
#include "sim/geometry/transform.h"

namespace surge {

class CylinderSolid final : public Solid {
 public:
  CylinderSolid(const CylinderShape& shape, const Transform& transform);

  bool contains(Vec3d point) const override { return signed_distance(point) <= 0.0; }
  double signed_distance(Vec3d point) const override;
  double surface_distance(Vec3d point, double) const override;
  Aabb bounds() const override;
  MassProperties mass_properties(double density) const override;
  TriangleMesh surface_mesh() const override {
    return cylinder_surface(center_, rotation_, radius_, half_height_);
  }

 private:
  Mat3d rotation_;
  Vec3d center_;        // world [m]
  double radius_;       // scale applied [m]
  double half_height_;  // scale applied [m]
};

}  // namespace surge
