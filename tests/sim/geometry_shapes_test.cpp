// sim/geometry: transforms (the rotation order, with 90-degree cases that tell the orders apart), and
// the analytic solids' signed distance, bounds and refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "sim/geometry/box_solid.h"
#include "sim/geometry/cylinder_solid.h"
#include "sim/geometry/geometry_error.h"
#include "sim/geometry/place_solid.h"
#include "sim/geometry/sphere_solid.h"
#include "sim/geometry/transform.h"

namespace surge {
namespace {

void expect_near(Vec3d actual, Vec3d expected, double tolerance = 1e-12) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

TEST(GeometryTransform, NinetyDegreesAboutEachAxisFollowTheRightHandRule) {
  expect_near(rotation_from_euler_degrees({90, 0, 0}) * Vec3d{0, 1, 0}, {0, 0, 1});
  expect_near(rotation_from_euler_degrees({0, 90, 0}) * Vec3d{0, 0, 1}, {1, 0, 0});
  expect_near(rotation_from_euler_degrees({0, 0, 90}) * Vec3d{1, 0, 0}, {0, 1, 0});
}

TEST(GeometryTransform, EulerAnglesApplyAboutXThenYThenZ) {
  // x first: y -> z, then y: z -> x. The other order would leave y alone first and give z.
  expect_near(rotation_from_euler_degrees({90, 90, 0}) * Vec3d{0, 1, 0}, {1, 0, 0});
  // x first: z -> -y, then z: -y -> x. Rotating about z first would give -y.
  expect_near(rotation_from_euler_degrees({90, 0, 90}) * Vec3d{0, 0, 1}, {1, 0, 0});
  // y first: x -> -z, then z leaves -z alone. z first would turn x to y, which y then leaves alone.
  expect_near(rotation_from_euler_degrees({0, 90, 90}) * Vec3d{1, 0, 0}, {0, 0, -1});
}

TEST(GeometryTransform, AxisAngleMatchesEulerAndPermutesAxesAboutTheDiagonal) {
  const Mat3d about_z = rotation_from_axis_angle_degrees({0, 0, 2}, 90);
  const Mat3d euler_z = rotation_from_euler_degrees({0, 0, 90});
  for (int i = 0; i < 3; ++i) expect_near(about_z.row(i), euler_z.row(i));
  const Mat3d diagonal = rotation_from_axis_angle_degrees({1, 1, 1}, 120);
  expect_near(diagonal * Vec3d{1, 0, 0}, {0, 1, 0});
  expect_near(diagonal * Vec3d{0, 1, 0}, {0, 0, 1});
  EXPECT_THROW(rotation_from_axis_angle_degrees({0, 0, 0}, 10), GeometryError);
}

TEST(GeometryTransform, WorldAndLocalRoundTripWithScaleRotationAndTranslation) {
  const Transform t{{2.0, 0.5, 3.0}, rotation_from_euler_degrees({30, -45, 110}), {1.0, -2.0, 0.25}};
  for (Vec3d p : {Vec3d{0, 0, 0}, Vec3d{1, 2, 3}, Vec3d{-0.3, 0.7, -5}})
    expect_near(t.to_local(t.to_world(p)), p);
  // Scale applies in the local frame, before the rotation: local x stretched by 2, then turned to y.
  const Transform turn{{2, 1, 1}, rotation_from_euler_degrees({0, 0, 90}), {0, 0, 1}};
  expect_near(turn.to_world({1, 0, 0}), {0, 2, 1});
  // R is orthonormal: R^T R = 1.
  const Mat3d rt_r = transpose(t.rotation) * t.rotation;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(rt_r.m[i][j], i == j ? 1.0 : 0.0, 1e-15);
}

TEST(GeometryShapes, BoxSignedDistanceInsideOnFacesEdgesAndCorners) {
  // Size (2, 4, 6) centred at (1, 2, 3), turned 90 degrees about z: local x is world y, local y is -x.
  const Transform t{{1, 1, 1}, rotation_from_euler_degrees({0, 0, 90}), {1, 2, 3}};
  const BoxSolid box(BoxShape::from_size({2, 4, 6}), t);
  const auto at_local = [&](Vec3d local) { return box.signed_distance(t.to_world(local)); };
  EXPECT_NEAR(at_local({0, 0, 0}), -1.0, 1e-12);  // nearest faces: local x = +-1
  EXPECT_NEAR(at_local({0.5, 0, 0}), -0.5, 1e-12);
  EXPECT_NEAR(at_local({0, 3, 0}), 1.0, 1e-12);                 // beyond a face
  EXPECT_NEAR(at_local({2, 3, 0}), std::sqrt(2.0), 1e-12);      // beyond an edge
  EXPECT_NEAR(at_local({2, 3, 4}), std::sqrt(3.0), 1e-12);      // beyond a corner
  EXPECT_NEAR(box.signed_distance({1 + 3, 2, 3}), 1.0, 1e-12);  // world x is local -y: half size 2
  EXPECT_TRUE(box.contains(t.to_world({0.99, 1.99, 2.99})));
  EXPECT_FALSE(box.contains(t.to_world({1.01, 0, 0})));
  const Aabb b = box.bounds();
  expect_near(b.min, {-1, 1, 0});
  expect_near(b.max, {3, 3, 6});
  // By corners, scaled per axis: [0, 1] x [0, 2] x [0, 3] scaled (2, 1, 0.5) is [0, 2] x [0, 2] x [0, 1.5].
  const BoxSolid corners(BoxShape{{0, 0, 0}, {1, 2, 3}}, Transform{{2, 1, 0.5}, Mat3d::identity(), {}});
  expect_near(corners.bounds().max, {2, 2, 1.5});
  EXPECT_NEAR(corners.signed_distance({1, 1, 0.75}), -0.75, 1e-12);
  EXPECT_THROW(BoxSolid(BoxShape{{0, 0, 0}, {1, 0, 1}}, Transform{}), GeometryError);
}

TEST(GeometryShapes, SphereSignedDistanceAndScale) {
  const SphereSolid sphere(
      SphereShape{0.5},
      Transform::uniform(2.0, rotation_from_euler_degrees({10, 20, 30}), {1, 1, 1}));  // radius 1
  EXPECT_NEAR(sphere.signed_distance({1, 1, 1}), -1.0, 1e-12);
  EXPECT_NEAR(sphere.signed_distance({1, 1, 3.5}), 1.5, 1e-12);
  EXPECT_NEAR(sphere.signed_distance({1.6, 1.8, 1}), 0.0, 1e-12);
  expect_near(sphere.bounds().min, {0, 0, 0});
  EXPECT_THROW(SphereSolid(SphereShape{1}, Transform{{1, 2, 1}, Mat3d::identity(), {}}), GeometryError);
  EXPECT_THROW(SphereSolid(SphereShape{-1}, Transform{}), GeometryError);
  EXPECT_THROW(SphereSolid(SphereShape{1}, Transform{{-1, -1, -1}, Mat3d::identity(), {}}), GeometryError);
}

TEST(GeometryShapes, CylinderSignedDistanceOnSideEndsAndRim) {
  // Radius 1, height 2, its axis turned onto world x (90 degrees about y), centred at (0, 0, 5).
  const Transform t{{1, 1, 1}, rotation_from_euler_degrees({0, 90, 0}), {0, 0, 5}};
  const CylinderSolid cylinder(CylinderShape{1.0, 2.0}, t);
  const auto at_local = [&](Vec3d local) { return cylinder.signed_distance(t.to_world(local)); };
  EXPECT_NEAR(at_local({0, 0, 0}), -1.0, 1e-12);
  EXPECT_NEAR(at_local({0.8, 0, 0}), -0.2, 1e-12);                 // near the side
  EXPECT_NEAR(at_local({0, 0, 0.9}), -0.1, 1e-12);                 // near an end
  EXPECT_NEAR(at_local({0, 2, 0}), 1.0, 1e-12);                    // beside
  EXPECT_NEAR(at_local({0.3, 0.4, -1.5}), 0.5, 1e-12);             // beyond an end, over the disc
  EXPECT_NEAR(at_local({0, 2, 2}), std::sqrt(2.0), 1e-12);         // beyond the rim
  EXPECT_NEAR(cylinder.signed_distance({1.5, 0, 5}), 0.5, 1e-12);  // the axis is world x
  expect_near(cylinder.bounds().min, {-1, -1, 4});
  expect_near(cylinder.bounds().max, {1, 1, 6});
  // Tilted 45 degrees about x: along y and z the axis reaches h/2 sin 45 and the disc r cos 45.
  const CylinderSolid tilted(CylinderShape{1.0, 2.0},
                             Transform{{1, 1, 1}, rotation_from_euler_degrees({45, 0, 0}), {}});
  const double reach = std::sqrt(0.5) + std::sqrt(0.5);
  expect_near(tilted.bounds().max, {1, reach, reach});
  // z may stretch the axis; x and y must agree.
  const CylinderSolid tall(CylinderShape{1.0, 2.0}, Transform{{2, 2, 3}, Mat3d::identity(), {}});
  EXPECT_NEAR(tall.signed_distance({0, 0, 0}), -2.0, 1e-12);
  EXPECT_NEAR(tall.signed_distance({0, 0, 4}), 1.0, 1e-12);
  EXPECT_THROW(CylinderSolid(CylinderShape{1, 2}, Transform{{1, 2, 1}, Mat3d::identity(), {}}),
               GeometryError);
}

TEST(GeometryShapes, PlaceSolidPicksTheShapeAndItsDistanceIsOneLipschitz) {
  const auto solid = place_solid(CylinderShape{0.3, 1.0},
                                 Transform{{1, 1, 1}, rotation_from_euler_degrees({20, 30, 40}), {}});
  // A signed distance changes no faster than the point moves: a check that holds for any exact distance.
  for (double x = -1; x <= 1; x += 0.1)
    for (double y = -1; y <= 1; y += 0.1) {
      const Vec3d p{x, y, 0.37 * x};
      const Vec3d q = p + Vec3d{0.013, -0.007, 0.011};
      EXPECT_LE(std::abs(solid->signed_distance(p) - solid->signed_distance(q)), length(q - p) + 1e-12);
    }
}

}  // namespace
}  // namespace surge
