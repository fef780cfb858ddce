// sim/geometry/solid_lattice.h: boundary particles of solids on the fluid's lattice, a shell `layers`
// deep with no holes, the exact count for a box, thin solids filled, and the fluid sites a solid removes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <set>
#include <tuple>

#include "sim/geometry/box_solid.h"
#include "sim/geometry/cylinder_solid.h"
#include "sim/geometry/mesh_import.h"
#include "sim/geometry/mesh_solid.h"
#include "sim/geometry/solid_lattice.h"
#include "sim/geometry/sphere_solid.h"

namespace surge {
namespace {

using Site = std::tuple<long, long, long>;

Vec3d to_double(Vec3f v) {
  return {double(v.x), double(v.y), double(v.z)};
}

// Every site within [-layers spacing, 0], and no hole: every lattice site inside the solid with one of
// its six neighbours outside (the sites a fluid particle could step through from outside) is sampled.
// Returns how many such surface-adjacent sites there were.
long expect_closed_shell(const Solid& solid, double spacing, int layers, Vec3d origin) {
  const auto sites = sample_solid_lattice(solid, spacing, layers, origin);
  std::set<Site> sampled;
  for (Vec3f s : sites) {
    const double d = solid.signed_distance(to_double(s));
    EXPECT_LE(d, 0.0);
    EXPECT_GE(d, -layers * spacing);
    sampled.insert({std::lround((s.x - origin.x) / spacing), std::lround((s.y - origin.y) / spacing),
                    std::lround((s.z - origin.z) / spacing)});
  }
  EXPECT_EQ(sampled.size(), sites.size()) << "a site sampled twice";
  const auto site_at = [&](long i, long j, long k) {
    return to_double(Vec3f{float(origin.x + double(i) * spacing), float(origin.y + double(j) * spacing),
                           float(origin.z + double(k) * spacing)});
  };
  const Aabb box = solid.bounds().padded(2 * spacing);
  long surface_adjacent = 0;
  for (long k = long(std::floor((box.min.z - origin.z) / spacing));
       k <= long((box.max.z - origin.z) / spacing); ++k)
    for (long j = long(std::floor((box.min.y - origin.y) / spacing));
         j <= long((box.max.y - origin.y) / spacing); ++j)
      for (long i = long(std::floor((box.min.x - origin.x) / spacing));
           i <= long((box.max.x - origin.x) / spacing); ++i) {
        if (!solid.contains(site_at(i, j, k))) continue;
        const bool next_to_outside =
            !solid.contains(site_at(i + 1, j, k)) || !solid.contains(site_at(i - 1, j, k)) ||
            !solid.contains(site_at(i, j + 1, k)) || !solid.contains(site_at(i, j - 1, k)) ||
            !solid.contains(site_at(i, j, k + 1)) || !solid.contains(site_at(i, j, k - 1));
        if (!next_to_outside) continue;
        ++surface_adjacent;
        EXPECT_TRUE(sampled.count({i, j, k})) << "hole at " << i << " " << j << " " << k;
      }
  return surface_adjacent;
}

TEST(GeometryLattice, BoxShellHasTheLatticeCount) {
  // [0, 1]^3 at spacing 0.1 with sites at 0.05 + 0.1 i: 10^3 inside, 6^3 of them deeper than two layers.
  const BoxSolid box(BoxShape{{0, 0, 0}, {1, 1, 1}}, Transform{});
  EXPECT_EQ(sample_solid_lattice(box, 0.1, 2, {0.05, 0.05, 0.05}).size(), 1000u - 216u);
  EXPECT_EQ(sample_solid_lattice(box, 0.1, 1, {0.05, 0.05, 0.05}).size(), 1000u - 512u);
  // Turned a quarter about z and moved by whole spacings: the same sites.
  const BoxSolid turned(BoxShape{{-0.5, -0.5, 0}, {0.5, 0.5, 1}},
                        Transform{{1, 1, 1}, rotation_from_euler_degrees({0, 0, 90}), {0.3, 0.2, 0.0}});
  EXPECT_EQ(sample_solid_lattice(turned, 0.1, 2, {0.05, 0.05, 0.05}).size(), 1000u - 216u);
  expect_closed_shell(box, 0.1, 1, {0.05, 0.05, 0.05});
}

// A floating body's own lattice (fitted_lattice): the box's outermost sites half a step inside each face,
// whatever the spacing and wherever the box sits. The Archimedes box of issue 12, 0.08 m at 0.0032 m: on the
// fluid's lattice (sites at 0.0016 + 0.0032 i) its lowest sites were 0.875 spacings above its bottom face,
// so to the fluid it was a box 0.375 spacings higher than its own.
TEST(GeometryLattice, AFittedLatticePutsABoxsOutermostSitesHalfAStepInside) {
  const BoxSolid box(BoxShape{{0.04, 0.04, 0.13}, {0.12, 0.12, 0.21}}, Transform{});
  const auto on_fluid_lattice = sample_solid_lattice(box, 0.0032, 2, {0.0016, 0.0016, 0.0016});
  float fluid_lowest_z = 1.0f;
  for (Vec3f s : on_fluid_lattice) fluid_lowest_z = std::min(fluid_lowest_z, s.z);
  EXPECT_NEAR(fluid_lowest_z, 0.1328f, 1e-6f);
  const SiteLattice lattice = fitted_lattice(box, 0.0032);
  EXPECT_NEAR(lattice.step.x, 0.0032, 1e-12);
  const auto sites = sample_solid_lattice(box, lattice, 2 * 0.0032);
  EXPECT_EQ(sites.size(), std::size_t(25 * 25 * 25 - 21 * 21 * 21));
  float lo[3] = {1, 1, 1}, hi[3] = {0, 0, 0};
  for (Vec3f s : sites) {
    const float c[3] = {s.x, s.y, s.z};
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
  }
  const float face_lo[3] = {0.04f, 0.04f, 0.13f}, face_hi[3] = {0.12f, 0.12f, 0.21f};
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(lo[a] - face_lo[a], 0.0016f, 1e-6f) << "axis " << a;
    EXPECT_NEAR(face_hi[a] - hi[a], 0.0016f, 1e-6f) << "axis " << a;
  }
  // A size that is not a whole number of spacings is spread evenly, as the walls are over the domain:
  // 0.083 m at 0.01 takes 8 steps of 0.010375.
  const BoxSolid odd(BoxShape{{0, 0, 0}, {0.083, 0.083, 0.083}}, Transform{});
  const SiteLattice spread = fitted_lattice(odd, 0.01);
  EXPECT_NEAR(spread.step.x, 0.010375, 1e-12);
  EXPECT_NEAR(spread.origin.x, 0.0051875, 1e-12);
  EXPECT_TRUE(deep_inside(odd, spread.site(3, 3, 3), 2 * 0.01));
  EXPECT_FALSE(deep_inside(odd, spread.site(1, 3, 3), 2 * 0.01));   // in the shell
  EXPECT_FALSE(deep_inside(odd, spread.site(-1, 3, 3), 2 * 0.01));  // outside
}

TEST(GeometryLattice, SolidsThinnerThanTheShellAreFilled) {
  // 0.2 thick, thinner than three layers of 0.1: both layers of sites (z = 0.05, 0.15) are the shell.
  const BoxSolid plate(BoxShape{{0, 0, 0}, {1, 1, 0.2}}, Transform{});
  const auto sites = sample_solid_lattice(plate, 0.1, 3, {0.05, 0.05, 0.05});
  EXPECT_EQ(sites.size(), 10u * 10u * 2u);
  const CylinderSolid rod(CylinderShape{0.12, 1.0}, Transform{});
  long inside = 0;
  for (int i = -3; i <= 3; ++i)
    for (int j = -3; j <= 3; ++j)
      for (int k = -10; k <= 10; ++k) inside += rod.contains({0.05 * i, 0.05 * j, 0.05 * k});
  EXPECT_EQ(long(sample_solid_lattice(rod, 0.05, 3, {0, 0, 0}).size()), inside);
}

TEST(GeometryLattice, CurvedAndRotatedShellsHaveNoHoles) {
  const Vec3d origin{0.0123, -0.0071, 0.0042};  // off any symmetry of the shapes
  EXPECT_GT(
      expect_closed_shell(SphereSolid(SphereShape{0.3}, Transform{{1, 1, 1}, Mat3d::identity(), {0.1, 0, 0}}),
                          0.02, 1, origin),
      1000);
  EXPECT_GT(
      expect_closed_shell(CylinderSolid(CylinderShape{0.2, 0.5},
                                        Transform{{1, 1, 1}, rotation_from_euler_degrees({35, 20, 0}), {}}),
                          0.02, 2, origin),
      1000);
  EXPECT_GT(
      expect_closed_shell(BoxSolid(BoxShape::from_size({0.4, 0.3, 0.2}),
                                   Transform{{1, 1, 1}, rotation_from_axis_angle_degrees({1, 2, 3}, 40), {}}),
                          0.02, 1, origin),
      500);
}

TEST(GeometryLattice, MeshShellsHaveNoHoles) {
  if (!mesh_import_available()) GTEST_SKIP() << "built without assimp (libassimp-dev): no mesh import";
  const std::filesystem::path meshes = std::filesystem::path(SURGE_SOURCE_DIR) / "assets" / "meshes";
  const Vec3d origin{0.0123, -0.0071, 0.0042};
  const MeshSolid ico(load_mesh(meshes / "icosphere.obj").mesh,
                      Transform{{0.6, 0.6, 0.6}, rotation_from_euler_degrees({10, 0, 0}), {}});
  EXPECT_GT(expect_closed_shell(ico, 0.02, 2, origin), 1000);
  // The paddle at 5 mm: the blades (20 mm thick) are thinner than three layers and come out filled.
  const MeshSolid paddle(load_mesh(meshes / "paddle.obj").mesh, Transform{});
  EXPECT_GT(expect_closed_shell(paddle, 0.005, 3, origin), 500);
}

TEST(GeometryLattice, FluidSitesNearOrInsideASolidAreBlocked) {
  const BoxSolid box(BoxShape{{0, 0, 0}, {1, 1, 1}}, Transform{});
  const double clearance = 0.05;                                          // half a spacing of 0.1
  EXPECT_TRUE(fluid_site_blocked(box, {0.5f, 0.5f, 0.5f}, clearance));    // inside
  EXPECT_TRUE(fluid_site_blocked(box, {1.0f, 0.5f, 0.5f}, clearance));    // on the surface
  EXPECT_TRUE(fluid_site_blocked(box, {1.04f, 0.5f, 0.5f}, clearance));   // too close
  EXPECT_FALSE(fluid_site_blocked(box, {1.05f, 0.5f, 0.5f}, clearance));  // exactly half a spacing: kept
  EXPECT_FALSE(fluid_site_blocked(box, {1.2f, 0.5f, 0.5f}, clearance));
  EXPECT_TRUE(fluid_site_blocked(box, {1.03f, 1.03f, 0.5f}, clearance));   // near an edge: 0.042 away
  EXPECT_FALSE(fluid_site_blocked(box, {1.04f, 1.04f, 0.5f}, clearance));  // 0.057 away
  // No site is both a solid particle and a fluid particle.
  const SphereSolid sphere(SphereShape{0.3}, Transform{});
  for (Vec3f s : sample_solid_lattice(sphere, 0.05, 2, {0.025, 0.025, 0.025}))
    ASSERT_TRUE(fluid_site_blocked(sphere, s, 0.025));
}

}  // namespace
}  // namespace surge
