// Solid::surface_mesh, the surface the renderer draws: every shape's is closed, faces outwards (check_mesh
// finds nothing to flip, its enclosed volume is positive), lies on the solid's surface where the solid is
// placed, and encloses the solid's volume (exactly for a box, within the tessellation's shortfall for a
// sphere and a cylinder).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>

#include "sim/geometry/mesh_check.h"
#include "sim/geometry/mesh_solid.h"
#include "sim/geometry/place_solid.h"
#include "sim/geometry/transform.h"
#include "tests/sim/geometry_test_meshes.h"

namespace surge {
namespace {

// Closed, outward, on the surface; returns the enclosed volume [m^3].
double checked_surface_volume(const Solid& solid) {
  const TriangleMesh surface = solid.surface_mesh();
  double farthest = 0;
  for (Vec3d v : surface.vertices) farthest = std::max(farthest, std::abs(solid.signed_distance(v)));
  EXPECT_LT(farthest, 1e-12) << "a vertex off the solid's surface";
  const CheckedMesh checked = check_mesh(surface, "surface");
  EXPECT_FALSE(checked.flipped_inside_out) << "the triangles should face outwards";
  return signed_volume(surface);
}

const Transform kPlaced{{1.0, 1.0, 1.0}, rotation_from_euler_degrees({30, -20, 65}), {0.3, -0.2, 0.5}};

TEST(GeometrySurfaceMesh, BoxIsTwelveTrianglesEnclosingItsVolume) {
  const auto box = place_solid(BoxShape::from_size({0.2, 0.1, 0.4}), kPlaced);
  EXPECT_EQ(box->surface_mesh().triangles.size(), 12u);
  EXPECT_NEAR(checked_surface_volume(*box), 0.2 * 0.1 * 0.4, 1e-15);
}

TEST(GeometrySurfaceMesh, SphereAndCylinderEncloseNearlyTheirVolume) {
  const auto sphere = place_solid(SphereShape{0.05}, kPlaced);
  const double sphere_ratio =
      checked_surface_volume(*sphere) / (4.0 / 3.0 * std::numbers::pi * std::pow(0.05, 3));
  Transform stretched = kPlaced;
  stretched.scale = {2.0, 2.0, 0.5};
  const auto cylinder = place_solid(CylinderShape{0.03, 0.2}, stretched);
  const double cylinder_ratio = checked_surface_volume(*cylinder) / (std::numbers::pi * 0.06 * 0.06 * 0.1);
  std::printf("inscribed polyhedra: sphere %.4f, cylinder %.4f of the true volume\n", sphere_ratio,
              cylinder_ratio);
  // Inscribed: a little less. A 48-gon holds (48 / 2 pi) sin(2 pi / 48) = 0.99715 of its circle.
  EXPECT_LT(sphere_ratio, 1.0);
  EXPECT_GT(sphere_ratio, 0.99);
  EXPECT_NEAR(cylinder_ratio, 48.0 / (2.0 * std::numbers::pi) * std::sin(2.0 * std::numbers::pi / 48.0),
              1e-9);
}

TEST(GeometrySurfaceMesh, MeshIsItsOwnTrianglesAsPlaced) {
  const Transform scaled{{2.0, 1.0, 0.5}, rotation_from_euler_degrees({0, 0, 90}), {1.0, 0.0, 0.0}};
  const MeshSolid mesh(unit_cube_mesh(), scaled);
  const TriangleMesh surface = mesh.surface_mesh();
  EXPECT_EQ(surface.triangles.size(), mesh.world_mesh().triangles.size());
  EXPECT_NEAR(checked_surface_volume(mesh), 2.0 * 1.0 * 0.5 * signed_volume(unit_cube_mesh()), 1e-12);
}

}  // namespace
}  // namespace surge
