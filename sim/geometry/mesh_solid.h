// A closed triangle mesh placed by a Transform (any per-axis scale: the vertices are moved, so distances
// stay exact). The mesh is checked on construction (check_mesh: closed, consistent, facing outwards).
//
// Inside test: the winding number of the surface around the point, counted as signed crossings of a ray
// (+1 where the ray leaves through a triangle, -1 where it enters); a point is inside where it is not 0,
// which is exact for a closed, consistently oriented mesh. A ray passing within rounding of an edge or a
// vertex could be counted twice or not at all, so such a ray is not trusted: the test tries the next of
// six fixed directions. Only if all pass that close is the point on an edge or vertex (then it is inside,
// as every surface point is) or within rounding of one, where the generalised winding number over
// every triangle (Jacobson et al. 2013) decides, needing no ray.
#pragma once

#include <string>

#include "sim/geometry/solid.h"
#include "sim/geometry/transform.h"
#include "sim/geometry/triangle_bvh.h"
#include "sim/geometry/triangle_mesh.h"

namespace surge {

class MeshSolid final : public Solid {
 public:
  // `source` names the mesh in MeshError messages (its file).
  MeshSolid(TriangleMesh mesh, const Transform& transform, const std::string& source = "mesh");

  bool contains(Vec3d point) const override;
  double signed_distance(Vec3d point) const override;
  double surface_distance(Vec3d point, double max_distance) const override;
  Aabb bounds() const override { return bounds_; }
  MassProperties mass_properties(double density) const override;
  TriangleMesh surface_mesh() const override { return world_; }

  const TriangleMesh& world_mesh() const { return world_; }
  bool flipped_inside_out() const { return flipped_; }

  // The winding number by the generalised formula over all triangles (O(n)): the fallback, public so a
  // test can compare the ray count with it.
  double generalized_winding_number(Vec3d point) const;

 private:
  TriangleMesh world_;
  TriangleBvh bvh_;
  Aabb bounds_;
  bool flipped_ = false;
};

}  // namespace surge
