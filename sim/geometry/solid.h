// A solid placed in the world: the one interface the scene loader, boundary sampling and rigid bodies
// see. Box, sphere, cylinder and triangle mesh implement it (box_solid.h, sphere_solid.h,
// cylinder_solid.h, mesh_solid.h); place_solid() (place_solid.h) makes one from a shape and a Transform.
//
// Conventions: signed distance is negative inside, zero on the surface, positive outside [m]; a point on
// the surface is contained. Queries are const and safe to call from several threads at once.
#pragma once

#include <limits>

#include "sim/core/vec.h"
#include "sim/geometry/aabb.h"
#include "sim/geometry/mass_properties.h"
#include "sim/geometry/triangle_mesh.h"

namespace surge {

class Solid {
 public:
  virtual ~Solid() = default;

  virtual bool contains(Vec3d point) const = 0;
  virtual double signed_distance(Vec3d point) const = 0;
  // Distance from `point` to the surface, exact when it is at most max_distance; beyond, any value
  // greater than max_distance (a mesh returns infinity). Lets a mesh skip most of its triangles for
  // points deep inside or far away (lattice sampling).
  virtual double surface_distance(Vec3d point,
                                  double max_distance = std::numeric_limits<double>::infinity()) const = 0;
  // World-space bounding box; tight for the analytic shapes and for meshes (their vertices' box).
  virtual Aabb bounds() const = 0;
  // density [kg/m^3] > 0.
  virtual MassProperties mass_properties(double density) const = 0;
  // The surface in world space as triangles facing outwards, for drawing: a mesh's own (scale and rotation
  // applied), the analytic shapes tessellated (surface_tessellation.h).
  virtual TriangleMesh surface_mesh() const = 0;
};

}  // namespace surge
