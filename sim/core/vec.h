// Small vector types shared by host and device code.
// Vec4f has the size and alignment of CUDA's float4, so positions and velocities load in 16 bytes
// on the GPU; the w component carries a per-particle scalar where one is useful (boundary volume).
#pragma once

#include <cmath>

#include "sim/core/hd.h"

namespace surge {

template <typename T>
struct Vec3 {
  T x{}, y{}, z{};
};

template <typename T>
SURGE_HD Vec3<T> operator+(Vec3<T> a, Vec3<T> b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <typename T>
SURGE_HD Vec3<T> operator-(Vec3<T> a, Vec3<T> b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <typename T>
SURGE_HD Vec3<T> operator-(Vec3<T> a) {
  return {-a.x, -a.y, -a.z};
}
template <typename T>
SURGE_HD Vec3<T> operator*(T s, Vec3<T> a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <typename T>
SURGE_HD Vec3<T> operator*(Vec3<T> a, T s) {
  return {s * a.x, s * a.y, s * a.z};
}
template <typename T>
SURGE_HD Vec3<T>& operator+=(Vec3<T>& a, Vec3<T> b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  return a;
}
template <typename T>
SURGE_HD Vec3<T>& operator-=(Vec3<T>& a, Vec3<T> b) {
  a.x -= b.x;
  a.y -= b.y;
  a.z -= b.z;
  return a;
}
template <typename T>
SURGE_HD T dot(Vec3<T> a, Vec3<T> b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <typename T>
SURGE_HD Vec3<T> cross(Vec3<T> a, Vec3<T> b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <typename T>
SURGE_HD T length_squared(Vec3<T> a) {
  return dot(a, a);
}

using Vec3f = Vec3<float>;
using Vec3d = Vec3<double>;

struct alignas(16) Vec4f {
  float x, y, z, w;
};

SURGE_HD Vec3f xyz(Vec4f v) {
  return {v.x, v.y, v.z};
}
SURGE_HD Vec4f make_vec4(Vec3f v, float w) {
  return {v.x, v.y, v.z, w};
}

}  // namespace surge
