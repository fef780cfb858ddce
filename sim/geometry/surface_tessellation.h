// The analytic shapes' surfaces as triangle meshes, for drawing them (Solid::surface_mesh): closed, facing
// outwards (counter-clockwise seen from outside, as TriangleMesh wants). A box is exact; a sphere and a
// cylinder are polyhedra whose vertices lie on the true surface, fine enough that their outline looks round
// at a viewer's size.
#pragma once

#include "sim/core/vec.h"
#include "sim/geometry/mat3.h"
#include "sim/geometry/triangle_mesh.h"

namespace surge {

// Segments around a sphere's equator and a cylinder's rim; a sphere has half as many rings.
inline constexpr int kRoundSegments = 48;

// A box of half extents `half` along the columns of `rotation`, centred at `center`: 8 corners, 12 triangles.
TriangleMesh box_surface(Vec3d center, const Mat3d& rotation, Vec3d half);
TriangleMesh sphere_surface(Vec3d center, double radius);
// Axis along the third column of `rotation`.
TriangleMesh cylinder_surface(Vec3d center, const Mat3d& rotation, double radius, double half_height);

}  // namespace surge
