// sim/geometry/mesh_solid.h: the inside test of closed meshes, exact against the analytic shape they
// approximate, on rays through vertices, along edges and in the planes of faces; the exact distance to
// the triangles; and how fast a 10k-triangle mesh classifies a million points.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "sim/geometry/box_solid.h"
#include "sim/geometry/mesh_import.h"
#include "sim/geometry/mesh_solid.h"
#include "sim/geometry/sphere_solid.h"
#include "tests/sim/geometry_test_meshes.h"

namespace surge {
namespace {

const std::filesystem::path kMeshes = std::filesystem::path(SURGE_SOURCE_DIR) / "assets" / "meshes";

// Distance from the centre to the nearest face plane of a mesh around the origin: the icosphere holds
// the ball of this radius and is held by the ball through its vertices.
double inscribed_radius(const TriangleMesh& mesh) {
  double r = 1e30;
  for (const auto& t : mesh.triangles) {
    const Vec3d a = mesh.vertices[t[0]], n = cross(mesh.vertices[t[1]] - a, mesh.vertices[t[2]] - a);
    r = std::min(r, std::abs(dot(a, n)) / length(n));
  }
  return r;
}

TEST(GeometryMesh, CubeMatchesTheBoxOnAGridThroughItsEdgesAndDiagonals) {
  // Grid step 0.05 from -1 to 1: many points share y or z with the cube's faces (+-0.5), so their rays
  // run along faces and edges, and points with |y| = |z| send the x ray through the face diagonals.
  const MeshSolid mesh(unit_cube_mesh(), Transform{});
  const BoxSolid box(BoxShape::from_size({1, 1, 1}), Transform{});
  int checked = 0;
  for (int i = -20; i <= 20; ++i)
    for (int j = -20; j <= 20; ++j)
      for (int k = -20; k <= 20; ++k) {
        const Vec3d p{0.05 * i, 0.05 * j, 0.05 * k};
        if (std::abs(box.signed_distance(p)) < 1e-9) continue;
        ASSERT_EQ(mesh.contains(p), box.contains(p)) << p.x << " " << p.y << " " << p.z;
        ++checked;
      }
  EXPECT_GT(checked, 60000);
}

TEST(GeometryMesh, RaysThroughVerticesEdgesAndFacePlanesOfTheCube) {
  const MeshSolid cube(unit_cube_mesh(), Transform{});
  EXPECT_TRUE(cube.contains({0, 0, 0}));         // x ray through the centre of a face's diagonal
  EXPECT_TRUE(cube.contains({0.1, 0.2, 0.2}));   // on one diagonal ...
  EXPECT_TRUE(cube.contains({0.1, 0.2, -0.2}));  // ... or the other, whichever the faces use
  EXPECT_FALSE(cube.contains({-1, 0, 0}));       // through two face diagonals
  EXPECT_FALSE(cube.contains({-1, 0.5, 0.5}));   // along an edge, through two vertices
  EXPECT_FALSE(cube.contains({-1, 0.5, 0.1}));   // in the plane of a face
  EXPECT_FALSE(cube.contains({-1, 0.5 + 1e-12, 0.1}));
  EXPECT_TRUE(cube.contains({0.3, 0.5 - 1e-12, 0.1}));
  // Turned 45 degrees about z: the x ray from any point with y = 0 meets the vertical edges.
  const MeshSolid diamond(unit_cube_mesh(),
                          Transform{{1, 1, 1}, rotation_from_euler_degrees({0, 0, 45}), {}});
  for (double z : {-0.4, -0.1, 0.0, 0.2, 0.5 - 1e-9}) {
    EXPECT_TRUE(diamond.contains({0, 0, z})) << z;
    EXPECT_TRUE(diamond.contains({-0.7, 0, z})) << z;
    EXPECT_FALSE(diamond.contains({-0.75, 0, z})) << z;
    EXPECT_FALSE(diamond.contains({0.75, 0, z})) << z;
  }
  // Points on the surface are contained (faces, edges and corners), as for the analytic shapes.
  for (Vec3d p : {Vec3d{0.5, 0.1, 0.2}, Vec3d{0.5, 0.5, 0.1}, Vec3d{0.5, 0.5, 0.5}, Vec3d{-0.5, -0.5, -0.5}})
    EXPECT_TRUE(cube.contains(p)) << p.x << " " << p.y << " " << p.z;
}

TEST(GeometryMesh, SignedDistanceToTheCubeIsTheBoxDistance) {
  const Transform t{{2, 1, 0.5}, rotation_from_euler_degrees({15, 25, 35}), {0.1, 0.2, 0.3}};
  const MeshSolid mesh(tessellated_unit_cube(3), t);
  const BoxSolid box(BoxShape::from_size({1, 1, 1}), t);
  for (int i = -6; i <= 6; ++i)
    for (int j = -6; j <= 6; ++j)
      for (int k = -6; k <= 6; ++k) {
        const Vec3d p{0.23 * i + 0.01, 0.17 * j - 0.02, 0.13 * k + 0.03};
        ASSERT_NEAR(mesh.signed_distance(p), box.signed_distance(p), 1e-12)
            << p.x << " " << p.y << " " << p.z;
        EXPECT_EQ(mesh.surface_distance(p, 0.1) >= 0.1, std::abs(box.signed_distance(p)) >= 0.1);
      }
}

TEST(GeometryMesh, IcosphereMatchesTheSphereAwayFromItsChordError) {
  if (!mesh_import_available()) GTEST_SKIP() << "built without assimp (libassimp-dev): no mesh import";
  const CheckedMesh ico = load_mesh(kMeshes / "icosphere.obj");
  const double r = 0.5, r_in = inscribed_radius(ico.mesh);
  EXPECT_GT(r_in, 0.98 * r);  // the chord error of two subdivisions: r - r_in is about 1.6 % of r
  const MeshSolid mesh(ico.mesh, Transform{});
  int inside = 0, outside = 0;
  for (int i = -15; i <= 15; ++i)
    for (int j = -15; j <= 15; ++j)
      for (int k = -15; k <= 15; ++k) {
        const Vec3d p{0.04 * i, 0.04 * j, 0.04 * k};
        const double d = length(p);
        if (d >= r_in && d <= r) continue;
        ASSERT_EQ(mesh.contains(p), d < r_in) << p.x << " " << p.y << " " << p.z;
        (d < r_in ? inside : outside) += 1;
        // The distance to the triangles lies between the distances to the two spheres.
        const double sd = mesh.signed_distance(p);
        ASSERT_GE(sd, d - r - 1e-6);
        ASSERT_LE(sd, d - r_in + 1e-6);
      }
  EXPECT_GT(inside, 1000);
  EXPECT_GT(outside, 1000);
}

TEST(GeometryMesh, IcosphereRaysThroughVerticesAndEdgeMidpoints) {
  if (!mesh_import_available()) GTEST_SKIP() << "built without assimp (libassimp-dev): no mesh import";
  const CheckedMesh ico = load_mesh(kMeshes / "icosphere.obj");
  const double r_in = inscribed_radius(ico.mesh);
  const MeshSolid mesh(ico.mesh, Transform{});
  // The +x ray from (x0, y, z) passes through the vertex (or the point on an edge) at that y, z.
  int through_inside = 0;
  const auto check_ray_through = [&](Vec3d target) {
    if (target.x <= 0) return;
    const Vec3d out{-1.0, target.y, target.z};
    EXPECT_FALSE(mesh.contains(out)) << target.x << " " << target.y << " " << target.z;
    const Vec3d in{0.0, target.y, target.z};
    if (length(in) < r_in) {
      EXPECT_TRUE(mesh.contains(in)) << target.x << " " << target.y << " " << target.z;
      ++through_inside;
    }
  };
  const TriangleMesh& m = mesh.world_mesh();
  for (const Vec3d& v : m.vertices) check_ray_through(v);
  for (const auto& t : m.triangles)
    for (int e = 0; e < 3; ++e) check_ray_through(0.5 * (m.vertices[t[e]] + m.vertices[t[(e + 1) % 3]]));
  EXPECT_GT(through_inside, 200);
}

TEST(GeometryMesh, RayCountAgreesWithTheGeneralisedWindingNumberOnThePaddle) {
  if (!mesh_import_available()) GTEST_SKIP() << "built without assimp (libassimp-dev): no mesh import";
  const MeshSolid paddle(load_mesh(kMeshes / "paddle.obj").mesh, Transform{});
  int inside = 0;
  for (int i = -12; i <= 12; ++i)
    for (int j = -12; j <= 12; ++j)
      for (int k = -4; k <= 16; ++k) {
        // x and y on the blades' side faces (+-0.02): rays along the faces; z through the slab's middle.
        const Vec3d p{0.02 * i, 0.02 * j, 0.02 * k + 0.005};
        if (paddle.surface_distance(p, 1e-6) < 1e-6) continue;
        const double w = paddle.generalized_winding_number(p);
        ASSERT_NEAR(w, std::round(w), 1e-6);
        ASSERT_EQ(paddle.contains(p), std::lround(w) != 0) << p.x << " " << p.y << " " << p.z;
        inside += paddle.contains(p);
      }
  EXPECT_GT(inside, 30);
}

TEST(GeometryMesh, TenThousandTrianglesClassifyAMillionPointsInSeconds) {
  const TriangleMesh fine = tessellated_unit_cube(29);
  ASSERT_EQ(fine.triangles.size(), 10092u);
  const MeshSolid mesh(fine, Transform{});
  const BoxSolid box(BoxShape::from_size({1, 1, 1}), Transform{});
  const int n = 100;  // 1e6 points over [-0.6, 0.6]^3, none on the surface
  long mismatches = 0, inside = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const Vec3d p{-0.6 + 1.2 * (i + 0.5) / n, -0.6 + 1.2 * (j + 0.5) / n, -0.6 + 1.2 * (k + 0.5) / n};
        const bool in = mesh.contains(p);
        mismatches += in != box.contains(p);
        inside += in;
      }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ timing   ] %d points against %zu triangles in %.2f s on one core: %.2e points/s\n",
              n * n * n, fine.triangles.size(), seconds, n * n * n / seconds);
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(inside, 500000);
  EXPECT_LT(seconds, 30.0);  // "seconds, not minutes", with room for a busy shared machine
}

}  // namespace
}  // namespace surge
