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

// 1 / sqrt(x), the inner loops' square root (n-body gravity, the SPH kernels' gradient_factor): on the GPU
// one special-function instruction (2 ulp) where 1.0f / sqrtf(x) is a square root and a division, each with a
// slow path; on the host a square root and a division.
template <typename T>
SURGE_HD T reciprocal_sqrt(T value) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == sizeof(float)) {
    // rsqrtf() asks for the IEEE denormal behaviour, for which ptxas wraps the instruction in a test and two
    // rescaling multiplies; the flush-to-zero form is the bare instruction. It differs only for inputs below
    // 1.2e-38: a softened distance never is, an unsoftened one is only for bodies 1e-19 apart (whose pull
    // overflows float either way), and gradient_factor clamps r^2 to at least that.
    float result;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(result) : "f"(value));
    return result;
  } else {
    return rsqrt(value);
  }
#else
  return T(1) / std::sqrt(value);
#endif
}

// a / b for the inner loops: on the GPU __fdividef (a reciprocal and a multiply, within 2 ulp for |b| below
// 2^126), where a / b rounds exactly at the cost of a refinement, a check and a slow path; on the host a / b.
SURGE_HD float fast_divide(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdividef(a, b);
#else
  return a / b;
#endif
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
