// The little matrix algebra a camera needs: 4x4 column-major matrices, as OpenGL reads them.
#pragma once

#include <array>
#include <cmath>

#include "sim/core/vec.h"

namespace surge::render {

struct Mat4 {
  std::array<float, 16> m{};  // column-major: element (row r, column c) is m[c * 4 + r]
  float& at(int row, int column) { return m[column * 4 + row]; }
  float at(int row, int column) const { return m[column * 4 + row]; }
  static Mat4 identity() {
    Mat4 out;
    for (int i = 0; i < 4; ++i) out.at(i, i) = 1.0f;
    return out;
  }
};

inline Mat4 operator*(const Mat4& a, const Mat4& b) {
  Mat4 out;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      float sum = 0;
      for (int k = 0; k < 4; ++k) sum += a.at(r, k) * b.at(k, c);
      out.at(r, c) = sum;
    }
  return out;
}

struct Vec4 {
  float x, y, z, w;
};
inline Vec4 operator*(const Mat4& a, Vec4 v) {
  const float in[4] = {v.x, v.y, v.z, v.w};
  float out[4];
  for (int r = 0; r < 4; ++r)
    out[r] = a.at(r, 0) * in[0] + a.at(r, 1) * in[1] + a.at(r, 2) * in[2] + a.at(r, 3) * in[3];
  return {out[0], out[1], out[2], out[3]};
}

inline Vec3f cross(Vec3f a, Vec3f b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline Vec3f normalized(Vec3f a) {
  const float length = std::sqrt(dot(a, a));
  return length > 0 ? (1.0f / length) * a : a;
}

// View matrix of an eye at `eye` looking at `target` (right-handed, the camera looks down its -z).
inline Mat4 look_at(Vec3f eye, Vec3f target, Vec3f up) {
  const Vec3f forward = normalized(target - eye);
  const Vec3f right = normalized(cross(forward, up));
  const Vec3f true_up = cross(right, forward);
  Mat4 view = Mat4::identity();
  view.at(0, 0) = right.x, view.at(0, 1) = right.y, view.at(0, 2) = right.z;
  view.at(1, 0) = true_up.x, view.at(1, 1) = true_up.y, view.at(1, 2) = true_up.z;
  view.at(2, 0) = -forward.x, view.at(2, 1) = -forward.y, view.at(2, 2) = -forward.z;
  view.at(0, 3) = -dot(right, eye);
  view.at(1, 3) = -dot(true_up, eye);
  view.at(2, 3) = dot(forward, eye);
  return view;
}

// OpenGL perspective projection (clip z in [-w, w]); vertical field of view in radians.
inline Mat4 perspective(float fov_y, float aspect, float z_near, float z_far) {
  const float f = 1.0f / std::tan(0.5f * fov_y);
  Mat4 p;
  p.at(0, 0) = f / aspect;
  p.at(1, 1) = f;
  p.at(2, 2) = (z_far + z_near) / (z_near - z_far);
  p.at(2, 3) = 2.0f * z_far * z_near / (z_near - z_far);
  p.at(3, 2) = -1.0f;
  return p;
}

// OpenGL orthographic projection of the box [-half_width, half_width] x [-half_height, half_height] x
// [-z_far, -z_near] in eye space (clip z in [-1, 1], w = 1).
inline Mat4 orthographic(float half_width, float half_height, float z_near, float z_far) {
  Mat4 p = Mat4::identity();
  p.at(0, 0) = 1.0f / half_width;
  p.at(1, 1) = 1.0f / half_height;
  p.at(2, 2) = -2.0f / (z_far - z_near);
  p.at(2, 3) = -(z_far + z_near) / (z_far - z_near);
  return p;
}

}  // namespace surge::render
