// sim/geometry mass properties: the polyhedral integrals against the analytic box (exactly, to
// rounding), the icosphere against the balls that bound it, and the analytic cylinder against its
// textbook formulas, in world axes after a rotation.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>

#include "sim/geometry/box_solid.h"
#include "sim/geometry/cylinder_solid.h"
#include "sim/geometry/mesh_import.h"
#include "sim/geometry/mesh_solid.h"
#include "sim/geometry/sphere_solid.h"
#include "tests/sim/geometry_test_meshes.h"

namespace surge {
namespace {

const std::filesystem::path kMeshes = std::filesystem::path(SURGE_SOURCE_DIR) / "assets" / "meshes";

void expect_same(const MassProperties& actual, const MassProperties& expected, double relative) {
  EXPECT_NEAR(actual.volume, expected.volume, relative * expected.volume);
  EXPECT_NEAR(actual.mass, expected.mass, relative * expected.mass);
  const double size = std::cbrt(expected.volume);
  EXPECT_NEAR(actual.center_of_mass.x, expected.center_of_mass.x, relative * size);
  EXPECT_NEAR(actual.center_of_mass.y, expected.center_of_mass.y, relative * size);
  EXPECT_NEAR(actual.center_of_mass.z, expected.center_of_mass.z, relative * size);
  const double scale = expected.inertia.m[0][0] + expected.inertia.m[1][1] + expected.inertia.m[2][2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(actual.inertia.m[i][j], expected.inertia.m[i][j], relative * scale);
}

TEST(GeometryMass, CubeMeshEqualsTheAnalyticBoxAfterScaleRotationAndTranslation) {
  const Transform t{{2, 3, 0.5}, rotation_from_euler_degrees({30, 45, 60}), {10, -20, 5}};
  const double density = 1000;
  const MassProperties box = BoxSolid(BoxShape::from_size({1, 1, 1}), t).mass_properties(density);
  EXPECT_NEAR(box.volume, 3.0, 1e-12);
  // Far from the origin (the translation) and tessellated: still exact to rounding.
  expect_same(MeshSolid(unit_cube_mesh(), t).mass_properties(density), box, 1e-12);
  expect_same(MeshSolid(tessellated_unit_cube(7), t).mass_properties(density), box, 1e-12);
  if (mesh_import_available())
    expect_same(MeshSolid(load_mesh(kMeshes / "unit_cube.stl").mesh, t).mass_properties(density), box, 1e-12);
  // The box's own off-diagonal terms are non-zero after this rotation: the comparison is not of zeros.
  EXPECT_GT(std::abs(box.inertia.m[0][1]), 1.0);
}

TEST(GeometryMass, IcosphereLiesBetweenItsInscribedAndCircumscribedBalls) {
  if (!mesh_import_available()) GTEST_SKIP() << "built without assimp (libassimp-dev): no mesh import";
  const CheckedMesh ico = load_mesh(kMeshes / "icosphere.obj");
  double r_in = 1e30;
  for (const auto& t : ico.mesh.triangles) {
    const Vec3d a = ico.mesh.vertices[t[0]],
                n = cross(ico.mesh.vertices[t[1]] - a, ico.mesh.vertices[t[2]] - a);
    r_in = std::min(r_in, dot(a, n) / length(n));
  }
  // The polyhedron holds the ball of radius r_in and is held by the ball of radius 0.5 (its vertices are on
  // it), and volume and each diagonal moment grow with the set: V in [V(r_in), V(0.5)] and I_ii likewise.
  // r_in / r = 0.9822 here, so the bound is 1 - 0.9822^3 = 5.2 % on the volume and 1 - 0.9822^5 = 8.6 % on
  // the inertia.
  const double density = 7.5;
  const MassProperties mesh = MeshSolid(ico.mesh, Transform{}).mass_properties(density);
  const MassProperties outer = SphereSolid(SphereShape{0.5}, Transform{}).mass_properties(density);
  const MassProperties inner = SphereSolid(SphereShape{r_in}, Transform{}).mass_properties(density);
  EXPECT_NEAR(r_in / 0.5, 0.9822, 1e-3);
  EXPECT_GT(mesh.volume, inner.volume);
  EXPECT_LT(mesh.volume, outer.volume);
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(mesh.inertia.m[i][i], inner.inertia.m[i][i]);
    EXPECT_LT(mesh.inertia.m[i][i], outer.inertia.m[i][i]);
    for (int j = 0; j < 3; ++j) {
      if (i != j) {
        EXPECT_NEAR(mesh.inertia.m[i][j], 0.0, 1e-7 * outer.inertia.m[0][0]);  // float vertices
      }
    }
  }
  EXPECT_NEAR(length(mesh.center_of_mass), 0.0, 1e-7);
  // Where in the bound it lies: 3.4 % short of the sphere's volume (inscribed polyhedra fall short).
  EXPECT_NEAR(mesh.volume / outer.volume, 0.966, 0.002);
}

TEST(GeometryMass, CylinderInertiaFollowsTheFormulasInWorldAxes) {
  const double r = 0.3, h = 1.2, density = 2700;
  const double mass = density * std::numbers::pi * r * r * h;
  // Axis along world x (90 degrees about y): I_xx is the axial moment m r^2 / 2, the others m (3 r^2 + h^2)
  // / 12.
  const MassProperties p =
      CylinderSolid(CylinderShape{r, h},
                    Transform{{1, 1, 1}, rotation_from_euler_degrees({0, 90, 0}), {1, 2, 3}})
          .mass_properties(density);
  EXPECT_NEAR(p.mass, mass, 1e-9 * mass);
  EXPECT_NEAR(p.inertia.m[0][0], mass * r * r / 2, 1e-9 * mass);
  EXPECT_NEAR(p.inertia.m[1][1], mass * (3 * r * r + h * h) / 12, 1e-9 * mass);
  EXPECT_NEAR(p.inertia.m[2][2], mass * (3 * r * r + h * h) / 12, 1e-9 * mass);
  EXPECT_NEAR(p.inertia.m[0][1], 0.0, 1e-9 * mass);
  EXPECT_NEAR(p.center_of_mass.z, 3.0, 1e-12);
  // Tilted 30 degrees about x from z: I_zz = I_axial cos^2 + I_across sin^2, I_yz = (I_axial - I_across) ...
  // sign by R I R^T: the axis a = (0, -sin 30, cos 30), I = I_across 1 + (I_axial - I_across) a a^T.
  const MassProperties q =
      CylinderSolid(CylinderShape{r, h}, Transform{{1, 1, 1}, rotation_from_euler_degrees({30, 0, 0}), {}})
          .mass_properties(density);
  const double axial = mass * r * r / 2, across = mass * (3 * r * r + h * h) / 12;
  const double s = std::sin(std::numbers::pi / 6), c = std::cos(std::numbers::pi / 6);
  EXPECT_NEAR(q.inertia.m[2][2], across + (axial - across) * c * c, 1e-9 * mass);
  EXPECT_NEAR(q.inertia.m[1][1], across + (axial - across) * s * s, 1e-9 * mass);
  EXPECT_NEAR(q.inertia.m[1][2], -(axial - across) * s * c, 1e-9 * mass);
}

TEST(GeometryMass, PaddleVolumeMatchesItsLatticeCount) {
  if (!mesh_import_available()) GTEST_SKIP() << "built without assimp (libassimp-dev): no mesh import";
  // The sites of a lattice inside a solid times spacing^3 estimate its volume (here to about a per cent);
  // the divergence-theorem volume of the non-convex paddle must agree.
  const MeshSolid paddle(load_mesh(kMeshes / "paddle.obj").mesh, Transform{});
  const double spacing = 0.004;
  const Aabb box = paddle.bounds();
  long inside = 0;
  for (double z = box.min.z + spacing / 3; z < box.max.z; z += spacing)
    for (double y = box.min.y + spacing / 2; y < box.max.y; y += spacing)
      for (double x = box.min.x + spacing / 2; x < box.max.x; x += spacing)
        inside += paddle.contains({x, y, z});
  const double counted = double(inside) * spacing * spacing * spacing;
  const MassProperties p = paddle.mass_properties(1000);
  EXPECT_NEAR(p.volume, counted, 0.02 * counted);
  EXPECT_NEAR(p.center_of_mass.x, 0.0, 1e-6);
  EXPECT_GT(p.center_of_mass.z, 0.01);  // the shaft rises above the blades
}

}  // namespace
}  // namespace surge
