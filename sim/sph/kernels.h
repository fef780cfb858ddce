// SPH smoothing kernels in 3D as small value types: built on the host with their support radius,
// passed by value into OpenMP loops and CUDA kernels. `support` is the radius where W reaches zero
// (SPlisHSPlasH's convention); q = r / support lies in [0, 1].
#pragma once

#include "sim/core/hd.h"
#include "sim/core/vec.h"

namespace surge {

// The r^2 below which gradient_factor and distance_from_squared take r^2 as this: the smallest normal float,
// below which the GPU's reciprocal_sqrt would flush to zero. 1 / r stays finite at r = 0, where a gradient is
// r_ij = 0 times it and a distance r^2 = 0 times it.
inline constexpr float kSmallestR2 = 1.17549435e-38f;

// |r| from r^2 in the inner loops: on the GPU r^2 times its reciprocal square root (2 ulp: one
// special-function instruction and a multiply; r^2 clamped to kSmallestR2 keeps 0 at 0), where sqrtf adds a
// refinement, a range check and a slow path; on the host sqrtf.
SURGE_HD float distance_from_squared(float r2) {
#if defined(__CUDA_ARCH__)
  return r2 * reciprocal_sqrt(fmaxf(r2, kSmallestR2));
#else
  return sqrtf(r2);
#endif
}

// Cubic B-spline (Monaghan 1992), normalised for 3D with compact support `support`:
//   W(q) = s (6q^3 - 6q^2 + 1)  for q <= 1/2,   s 2(1 - q)^3  for 1/2 < q <= 1,   s = 8 / (pi H^3).
template <typename T>
struct CubicSplineKernel {
  T support{};
  T inv_support{};
  T sigma{};

  static CubicSplineKernel make(T support_radius) {
    const T pi = T(3.14159265358979323846);
    return {support_radius, T(1) / support_radius,
            T(8) / (pi * support_radius * support_radius * support_radius)};
  }

  SURGE_HD T value(T r) const {
    const T q = r * inv_support;
    if (q > T(1)) return T(0);
    if (q <= T(0.5)) return sigma * (T(6) * q * q * q - T(6) * q * q + T(1));
    const T one_minus_q = T(1) - q;
    return sigma * T(2) * one_minus_q * one_minus_q * one_minus_q;
  }

  // dW/dr: negative inside the support, zero outside.
  SURGE_HD T derivative(T r) const {
    const T q = r * inv_support;
    if (q > T(1)) return T(0);
    if (q <= T(0.5)) return sigma * inv_support * T(6) * q * (T(3) * q - T(2));
    const T one_minus_q = T(1) - q;
    return -sigma * inv_support * T(6) * one_minus_q * one_minus_q;
  }

  // grad_i W(x_i - x_j) for r_ij = x_i - x_j; zero at r = 0, where the kernel is flat.
  SURGE_HD Vec3<T> gradient(Vec3<T> r_ij, T r) const {
    if (r <= T(1e-9) * support) return {};
    return (derivative(r) / r) * r_ij;
  }

  // (dW/dr) / r, so that grad_i W(x_i - x_j) = gradient_factor(r^2) r_ij: the inner loops' form, from r^2
  // with one reciprocal square root and no division (derivative(r) / r with the r cancelled where it can be:
  // q / r = 1 / support). Finite at r = 0, where r_ij = 0 makes the gradient zero.
  SURGE_HD T gradient_factor(T r2) const {
    const T inverse_r = reciprocal_sqrt(r2 > kSmallestR2 ? r2 : kSmallestR2);
    const T q = r2 * inverse_r * inv_support;
    if (q > T(1)) return T(0);
    if (q <= T(0.5)) return sigma * inv_support * inv_support * T(6) * (T(3) * q - T(2));
    const T one_minus_q = T(1) - q;
    return -sigma * inv_support * T(6) * one_minus_q * one_minus_q * inverse_r;
  }
};

// Wendland C2 (Wendland 1995; Dehnen & Aly 2012), 3D:  W(q) = 21 / (2 pi H^3) (1 - q)^4 (1 + 4q).
template <typename T>
struct WendlandC2Kernel {
  T support{};
  T inv_support{};
  T sigma{};

  static WendlandC2Kernel make(T support_radius) {
    const T pi = T(3.14159265358979323846);
    return {support_radius, T(1) / support_radius,
            T(21) / (T(2) * pi * support_radius * support_radius * support_radius)};
  }

  SURGE_HD T value(T r) const {
    const T q = r * inv_support;
    if (q > T(1)) return T(0);
    const T a = T(1) - q;
    return sigma * a * a * a * a * (T(1) + T(4) * q);
  }

  SURGE_HD T derivative(T r) const {
    const T q = r * inv_support;
    if (q > T(1)) return T(0);
    const T a = T(1) - q;
    return -sigma * inv_support * T(20) * q * a * a * a;
  }

  SURGE_HD Vec3<T> gradient(Vec3<T> r_ij, T r) const {
    if (r <= T(1e-9) * support) return {};
    return (derivative(r) / r) * r_ij;
  }

  // (dW/dr) / r = -sigma 20 (1 - q)^3 / support^2, as CubicSplineKernel::gradient_factor.
  SURGE_HD T gradient_factor(T r2) const {
    const T q = r2 * reciprocal_sqrt(r2 > kSmallestR2 ? r2 : kSmallestR2) * inv_support;
    if (q > T(1)) return T(0);
    const T a = T(1) - q;
    return -sigma * inv_support * inv_support * T(20) * a * a * a;
  }
};

enum class KernelType { cubic_spline, wendland_c2 };

// Runs `body(kernel)` with the float kernel of that type, so one template serves every kernel.
template <typename Body>
auto with_kernel(KernelType type, float support, Body&& body) {
  if (type == KernelType::wendland_c2) return body(WendlandC2Kernel<float>::make(support));
  return body(CubicSplineKernel<float>::make(support));
}

}  // namespace surge
