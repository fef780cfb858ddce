// The tangential force of a contact with history: a spring on the tangential displacement, a dashpot,
// and the Coulomb limit (Cundall & Strack 1979; the stiffness of Mindlin 1949 with the Hertz law). This is
// the model LIGGGHTS calls `tangential history` and EDEM `Hertz-Mindlin (no slip)`.
//
//   xi   <- xi rotated onto the current tangent plane (length kept), + v_t dt
//   F_t  =  -k_t xi - gamma_t v_t,  and when |F_t| > mu max(F_n, 0):
//   F_t  =  mu F_n t,  t = F_t / |F_t|;  xi = -(mu F_n / k_t) t   (sliding: the spring sits at the limit)
//
// v_t is the tangential relative velocity of the two surfaces at the contact point, v_c - (v_c . n) n with
//   v_c = v_i - v_j - (r_i w_i + r_j w_j) x n,
// n the unit vector from j to i (so the contact point is at -r_i n from i and +r_j n from j; a wall or fixed
// grain has v_j = w_j = 0). The spring is rotated every step because the contact plane turns with the
// grains; without that, a rolling grain's spring would gain a normal part that is not a tangential force.
//
// Stiffness and damping:
//   Hertz:  k_t = 8 G* sqrt(R* delta) (Mindlin 1949; Di Renzo & Di Maio 2004),
//           G* = G / (2 (2 - nu)) for equal materials, G = E / (2 (1 + nu));
//           gamma_t = 2 sqrt(5/6) beta sqrt(k_t m*) (Tsuji et al. 1992 as in normal_contact.h).
//   linear: k_t = tangential_stiffness_ratio x k_n (default 2/7: a sphere's tangential oscillation at a
//           contact, with rotation, then has the period of the normal one, since its effective mass is 2/7
//           m); gamma_t = 2 zeta sqrt(k_t m*), the normal law's damping ratio.
//   A fixed [dem] tangential_damping > 0 replaces gamma_t.
// The spring stores a displacement and its force uses the current k_t, the usual simplification of Mindlin
// & Deresiewicz's incremental law; it keeps the spring exact for the linear law.
//
// Per-pair symmetry: grain i and grain j each keep their own copy of the spring (history by creation id,
// sim/dem/contact_history.h), integrated from the same relative velocity with n and v_c exactly negated
// (x_j - x_i = -(x_i - x_j) and IEEE arithmetic is symmetric under negation; the sum r_i w_i + r_j w_j is
// commutative). So xi_j = -xi_i and F_t on j = -F_t on i to the last bit, with no pass that writes another
// grain's memory (tests/sim/dem_mindlin_test.cpp checks it).
#pragma once

#include <cmath>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/dem/dem_parameters.h"

namespace surge {

// Tangential stiffness k_t [N/m] and damping gamma_t [N s/m] at overlap delta.
struct TangentialSpring {
  float stiffness = 0;
  float damping = 0;
};

SURGE_HD TangentialSpring tangential_spring(const DemParameters& p, float overlap, float m_eff, float r_eff) {
  float k_t = 0.0f, gamma_t = 0.0f;
  if (p.normal_model == NormalModel::hertz) {
    k_t = 8.0f * p.effective_shear_modulus * sqrtf(r_eff * overlap);
    gamma_t = 2.0f * 0.9128709f * p.damping_ratio * sqrtf(k_t * m_eff);
  } else {
    k_t = p.tangential_stiffness_ratio * p.stiffness;
    gamma_t = 2.0f * p.damping_ratio * sqrtf(k_t * m_eff);
  }
  if (p.tangential_damping > 0.0f) gamma_t = p.tangential_damping;
  return {k_t, gamma_t};
}

// Advances `spring` (this grain's copy of xi) by one step and returns the tangential force on this grain.
SURGE_HD Vec3f tangential_spring_force(const DemParameters& p, Vec3f n, Vec3f v_t, float normal_force,
                                       TangentialSpring law, Vec3f& spring) {
  // Onto the current tangent plane, keeping the length.
  const float before2 = length_squared(spring);
  spring -= dot(spring, n) * n;
  const float after2 = length_squared(spring);
  if (after2 > 0.0f) spring = sqrtf(before2 / after2) * spring;
  spring += p.dt * v_t;

  Vec3f force = -law.stiffness * spring - law.damping * v_t;
  const float limit = p.friction * fmaxf(normal_force, 0.0f);
  const float force2 = length_squared(force);
  if (force2 > limit * limit) {
    const Vec3f direction = (1.0f / sqrtf(force2)) * force;
    force = limit * direction;
    spring = (-limit / law.stiffness) * direction;
  }
  return force;
}

}  // namespace surge
