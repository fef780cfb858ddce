// A 3x3 matrix of doubles, row-major, for rotations and inertia tensors. Geometry works in double on
// the host: lattice sampling and mass properties happen once, at scene setup, where float's seven digits
// would show in a 1e6-point classification or in an inertia tensor summed over thousands of triangles.
#pragma once

#include "sim/core/vec.h"

namespace surge {

struct Mat3d {
  double m[3][3]{};

  static Mat3d identity() { return diagonal({1.0, 1.0, 1.0}); }
  static Mat3d diagonal(Vec3d d) {
    Mat3d r;
    r.m[0][0] = d.x;
    r.m[1][1] = d.y;
    r.m[2][2] = d.z;
    return r;
  }
  Vec3d row(int i) const { return {m[i][0], m[i][1], m[i][2]}; }
  Vec3d column(int j) const { return {m[0][j], m[1][j], m[2][j]}; }
};

inline Vec3d operator*(const Mat3d& a, Vec3d v) {
  return {dot(a.row(0), v), dot(a.row(1), v), dot(a.row(2), v)};
}

inline Mat3d operator*(const Mat3d& a, const Mat3d& b) {
  Mat3d r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = dot(a.row(i), b.column(j));
  return r;
}

inline Mat3d transpose(const Mat3d& a) {
  Mat3d r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[j][i];
  return r;
}

inline double length(Vec3d v) {
  return std::sqrt(length_squared(v));
}

}  // namespace surge
