// A box, axis-aligned in its own frame, placed by a Transform (any per-axis scale: a scaled box is a box).
#pragma once

#include "sim/geometry/shapes.h"
#include "sim/geometry/solid.h"
#include "sim/geometry/surface_tessellation.h"
#include "sim/geometry/transform.h"

namespace surge {

class BoxSolid final : public Solid {
 public:
  BoxSolid(const BoxShape& shape, const Transform& transform);

  bool contains(Vec3d point) const override { return signed_distance(point) <= 0.0; }
  double signed_distance(Vec3d point) const override;
  double surface_distance(Vec3d point, double max_distance) const override;
  Aabb bounds() const override;
  MassProperties mass_properties(double density) const override;
  TriangleMesh surface_mesh() const override { return box_surface(center_, rotation_, half_size_); }

 private:
  Mat3d rotation_;
  Vec3d center_;     // world [m]
  Vec3d half_size_;  // along the box's own axes, scale applied [m]
};

}  // namespace surge
