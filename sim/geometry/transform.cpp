#include "sim/geometry/transform.h"

#include <cmath>
#include <numbers>
#include <string>

#include "sim/geometry/geometry_error.h"

namespace surge {

namespace {

double radians(double degrees) {
  return degrees * std::numbers::pi / 180.0;
}

Mat3d rotation_x(double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  Mat3d r = Mat3d::identity();
  r.m[1][1] = c;
  r.m[1][2] = -s;
  r.m[2][1] = s;
  r.m[2][2] = c;
  return r;
}
Mat3d rotation_y(double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  Mat3d r = Mat3d::identity();
  r.m[0][0] = c;
  r.m[0][2] = s;
  r.m[2][0] = -s;
  r.m[2][2] = c;
  return r;
}
Mat3d rotation_z(double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  Mat3d r = Mat3d::identity();
  r.m[0][0] = c;
  r.m[0][1] = -s;
  r.m[1][0] = s;
  r.m[1][1] = c;
  return r;
}

}  // namespace

Mat3d rotation_from_euler_degrees(Vec3d degrees) {
  return rotation_z(radians(degrees.z)) * rotation_y(radians(degrees.y)) * rotation_x(radians(degrees.x));
}

Mat3d rotation_from_axis_angle_degrees(Vec3d axis, double degrees) {
  const double norm = length(axis);
  if (!(norm > 0.0) || !std::isfinite(norm)) throw GeometryError("rotation axis must be a non-zero vector");
  const Vec3d k = (1.0 / norm) * axis;
  const double angle = radians(degrees), c = std::cos(angle), s = std::sin(angle), t = 1.0 - c;
  // Rodrigues: R = c I + s [k]x + (1 - c) k k^T.
  Mat3d r;
  r.m[0][0] = c + t * k.x * k.x;
  r.m[0][1] = t * k.x * k.y - s * k.z;
  r.m[0][2] = t * k.x * k.z + s * k.y;
  r.m[1][0] = t * k.y * k.x + s * k.z;
  r.m[1][1] = c + t * k.y * k.y;
  r.m[1][2] = t * k.y * k.z - s * k.x;
  r.m[2][0] = t * k.z * k.x - s * k.y;
  r.m[2][1] = t * k.z * k.y + s * k.x;
  r.m[2][2] = c + t * k.z * k.z;
  return r;
}

void check_scale(const Transform& transform) {
  for (double s : {transform.scale.x, transform.scale.y, transform.scale.z})
    if (!(s > 0.0) || !std::isfinite(s))
      throw GeometryError("scale factors must be finite and positive, got " + std::to_string(s));
}

}  // namespace surge
