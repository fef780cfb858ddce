// Where a shape sits in the world: p_world = R (S p_local) + t. Scale first, in the shape's own frame,
// then rotation about the local origin, then translation.
//
// Rotation from Euler angles in degrees (rx, ry, rz): about the fixed world x axis first, then world y,
// then world z, i.e. R = Rz(rz) Ry(ry) Rx(rx). Where a scene gives both, the axis-angle rotation comes after
// the Euler angles: R = rotation_from_axis_angle_degrees(...) * rotation_from_euler_degrees(...). Angles
// follow the right-hand rule.
#pragma once

#include "sim/core/vec.h"
#include "sim/geometry/mat3.h"

namespace surge {

Mat3d rotation_from_euler_degrees(Vec3d degrees);
// `axis` need not be unit length; a zero axis throws GeometryError.
Mat3d rotation_from_axis_angle_degrees(Vec3d axis, double degrees);

struct Transform {
  Vec3d scale{1.0, 1.0, 1.0};  // per local axis, dimensionless, > 0
  Mat3d rotation = Mat3d::identity();
  Vec3d translation{};  // [m]

  static Transform uniform(double scale, const Mat3d& rotation, Vec3d translation) {
    return {{scale, scale, scale}, rotation, translation};
  }
  Vec3d to_world(Vec3d local) const {
    return rotation * Vec3d{scale.x * local.x, scale.y * local.y, scale.z * local.z} + translation;
  }
  Vec3d to_local(Vec3d world) const {
    const Vec3d scaled = transpose(rotation) * (world - translation);
    return {scaled.x / scale.x, scaled.y / scale.y, scaled.z / scale.z};
  }
  bool uniform_scale() const { return scale.x == scale.y && scale.y == scale.z; }
};

// Throws GeometryError unless every scale factor is finite and positive: a mirror (negative scale) would
// turn a mesh inside out, and a zero one flattens it.
void check_scale(const Transform& transform);

}  // namespace surge
