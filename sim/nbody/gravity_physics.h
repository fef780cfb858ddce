// Newtonian gravity between point masses with Plummer softening, and the leapfrog (kick-drift-kick)
// update: the single-source physics of the n-body solver. The CPU backend runs it in double, the CUDA
// backend in float; both call these functions.
#pragma once

#include <cmath>

#include "sim/core/hd.h"
#include "sim/core/vec.h"

namespace surge {

// A body as both backends store it: position and mass in one 4-component record, so the GPU reads a body
// with one 16-byte load (float) and shared-memory tiles hold whole bodies.
template <typename T>
struct alignas(4 * sizeof(T)) Body {
  Vec3<T> x;  // position [length]
  T m;        // mass [mass]
};

// Adds body j's pull on body i, per unit G, to `a`:
//   a_i += m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2)
// Plummer softening (Aarseth 1963): the pull of a Plummer sphere of scale eps instead of a point,
// finite at zero distance, so close encounters do not need tiny steps. With eps > 0 a body's pull on
// itself is exactly zero (r = 0), so all-pairs loops need no i != j test. kMayCoincide selects the
// guarded form for eps = 0, where r = 0 would give 0 * inf.
// The CUDA nbody sample counts this as 20 floating-point operations; Surge reports figures the same way.
// |r|^2 + eps^2. On the device the softening starts the sum, so it compiles to three fused multiply-adds
// instead of a multiply, two fused multiply-adds and an add: one instruction of the dozen a pair costs. The
// host keeps the order its double-precision runs were recorded in (tests/sim/data/cpu_regression.txt).
template <typename T>
SURGE_HD T softened_distance_squared(Vec3<T> r, T eps2) {
#if defined(__CUDA_ARCH__)
  return eps2 + r.x * r.x + r.y * r.y + r.z * r.z;
#else
  return dot(r, r) + eps2;
#endif
}

template <bool kMayCoincide = false, typename T>
SURGE_HD void add_pair_acceleration(Vec3<T> x_i, const Body<T>& body_j, T eps2, Vec3<T>& a_i) {
  const Vec3<T> r = body_j.x - x_i;
  const T d2 = softened_distance_squared(r, eps2);
  T inverse_d;
  if constexpr (kMayCoincide) {
    inverse_d = d2 > T(0) ? reciprocal_sqrt(d2) : T(0);
  } else {
    inverse_d = reciprocal_sqrt(d2);
  }
  const T s = body_j.m * inverse_d * inverse_d * inverse_d;
  a_i.x += r.x * s;
  a_i.y += r.y * s;
  a_i.z += r.z * s;
}

// Body j's contribution to the potential at x_i, per unit G: -m_j / sqrt(|x_j - x_i|^2 + eps^2), the
// potential whose gradient add_pair_acceleration follows. The caller leaves out j = i.
template <typename T>
SURGE_HD T pair_potential(Vec3<T> x_i, const Body<T>& body_j, T eps2) {
  const Vec3<T> r = body_j.x - x_i;
  const T d2 = softened_distance_squared(r, eps2);
  return d2 > T(0) ? -body_j.m * reciprocal_sqrt(d2) : T(0);
}

// Leapfrog in kick-drift-kick form (e.g. Hut, Makino & McMillan 1995): second order, time-reversible and
// symplectic, so energy errors stay bounded instead of drifting.
//   v_{n+1/2} = v_n + a_n dt/2;  x_{n+1} = x_n + v_{n+1/2} dt;  v_{n+1} = v_{n+1/2} + a_{n+1} dt/2
template <typename T>
SURGE_HD void kick(Vec3<T>& v, Vec3<T> a, T half_dt) {
  v += a * half_dt;
}
template <typename T>
SURGE_HD void drift(Vec3<T>& x, Vec3<T> v, T dt) {
  x += v * dt;
}

}  // namespace surge
