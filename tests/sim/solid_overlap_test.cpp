// A moving or floating solid may not start inside another solid (sim/geometry/solid_overlap.h): the
// geometric test, and the scene loader's error naming both solids, the line and the key.
#include "sim/geometry/solid_overlap.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/geometry/box_solid.h"
#include "sim/geometry/sphere_solid.h"
#include "sim/geometry/transform.h"
#include "sim/scene/scene.h"

namespace surge {
namespace {

Transform at(Vec3d centre) {
  return Transform{{1, 1, 1}, Mat3d::identity(), centre};
}

TEST(SolidOverlap, OverlappingShapesShareAPointInsideBoth) {
  const SphereSolid a(SphereShape{0.1}, at({0, 0, 0}));
  const SphereSolid b(SphereShape{0.1}, at({0.15, 0, 0}));  // 0.05 m of shared depth along x
  const auto point = shared_volume_point(a, b, 0.005);
  ASSERT_TRUE(point.has_value());
  EXPECT_LT(a.signed_distance(*point), 0.0);
  EXPECT_LT(b.signed_distance(*point), 0.0);

  const SphereSolid apart(SphereShape{0.1}, at({0.25, 0, 0}));
  EXPECT_FALSE(shared_volume_point(a, apart, 0.005).has_value());
  // Their boxes overlap, the spheres do not: diagonal neighbours 0.15 m apart on each axis (0.26 m > 0.2 m).
  const SphereSolid diagonal(SphereShape{0.1}, at({0.15, 0.15, 0.15}));
  EXPECT_FALSE(shared_volume_point(a, diagonal, 0.005).has_value());
}

TEST(SolidOverlap, SolidsThatOnlyTouchDoNotOverlap) {
  const BoxSolid floor_box(BoxShape{{0, 0, 0}, {0.2, 0.2, 0.1}}, Transform{});
  const BoxSolid on_top(BoxShape{{0.05, 0.05, 0.1}, {0.15, 0.15, 0.2}}, Transform{});  // face on face
  EXPECT_FALSE(shared_volume_point(floor_box, on_top, 0.005).has_value());
  const BoxSolid sunk(BoxShape{{0.05, 0.05, 0.09}, {0.15, 0.15, 0.2}}, Transform{});  // 1 cm into it
  EXPECT_TRUE(shared_volume_point(floor_box, sunk, 0.005).has_value());
}

std::string tank(const std::string& solids) {
  return R"(name = "tank"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.4, 0.4, 0.4]
[resolution]
spacing = 0.01
[fluid]
viscosity_alpha = 0.1
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.4, 0.4, 0.1]
[[solid]]
name = "obstacle"
shape = "box"
min = [0.1, 0.1, 0.0]
max = [0.3, 0.3, 0.1]
)" + solids;  // the obstacle's block starts on line 13, the next solid's on line 18
}

TEST(SolidOverlap, TheLoaderRefusesAMovingSolidThatStartsInsideAnother) {
  const std::string floating =
      "[[solid]]\nname = \"float\"\nshape = \"box\"\ncenter = [0.2, 0.2, %Z]\n"
      "size = [0.1, 0.1, 0.1]\nmotion = \"floating\"\ndensity = 500\n";
  const auto with_z = [&](const std::string& z) {
    std::string text = floating;
    text.replace(text.find("%Z"), 2, z);
    return tank(text);
  };
  // Standing on the obstacle (its bottom at z = 0.1, the obstacle's top): allowed.
  EXPECT_EQ(parse_scene(with_z("0.15"), "tank.toml").solids.size(), 2u);
  // 2 cm into it: refused at the floating solid's shape, naming both.
  try {
    parse_scene(with_z("0.13"), "tank.toml");
    ADD_FAILURE() << "no error for a floating box inside the obstacle";
  } catch (const SceneError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("tank.toml:20:"), std::string::npos) << what;
    EXPECT_NE(what.find("shape"), std::string::npos) << what;
    EXPECT_NE(what.find("\"float\" overlaps solid \"obstacle\" (line 13)"), std::string::npos) << what;
    EXPECT_NE(what.find("floating"), std::string::npos) << what;
  }
  // Two fixed solids may overlap: their shells make one boundary.
  const std::string fixed = "[[solid]]\nshape = \"box\"\nmin = [0.2, 0.2, 0.0]\nmax = [0.35, 0.35, 0.15]\n";
  EXPECT_EQ(parse_scene(tank(fixed), "tank.toml").solids.size(), 2u);
  // A moving one may not: a paddle turning inside the obstacle.
  const std::string paddle =
      "[[solid]]\nshape = \"box\"\nmin = [0.2, 0.2, 0.0]\nmax = [0.35, 0.35, 0.15]\n"
      "motion = \"rotate\"\nangular_speed = 90\n";
  EXPECT_THROW(parse_scene(tank(paddle), "tank.toml"), SceneError);
}

}  // namespace
}  // namespace surge
