// The normal force between two touching grains, or a grain and a wall, at overlap delta > 0.
//
//   linear (Cundall & Strack 1979):  F_n = k_n delta - gamma_n v_n
//   Hertz (Hertz 1882; damping after Tsuji et al. 1992):
//                                    F_n = 4/3 E* sqrt(R*) delta^(3/2) - gamma_n v_n
//
// v_n = (v_i - v_j) . n is the normal relative speed, negative while the grains approach, and n points
// from j to i, so a positive F_n pushes i away from j. m* = m_i m_j / (m_i + m_j) and
// R* = r_i r_j / (r_i + r_j) are the effective mass and radius (a wall or fixed grain: m* = m_i).
//
// The force is not clipped at zero: while the grains separate the dashpot may pull. That keeps the
// linear law an exact damped oscillator, m* delta'' + gamma_n delta' + k_n delta = 0, whose restitution
// is e = exp(-pi zeta / sqrt(1 - zeta^2)) with zeta = gamma_n / (2 sqrt(k_n m*)); a clipped force gives a
// different e (Schwager & Poeschel 2007). Inverting, zeta = -ln e / sqrt(pi^2 + ln^2 e).
#pragma once

#include <cmath>

#include "sim/core/hd.h"
#include "sim/dem/dem_parameters.h"

namespace surge {

struct NormalContact {
  float force = 0;      // F_n along n [N]
  float stiffness = 0;  // dF_n/d delta, k_n or S_n [N/m]: sets the default tangential damping
};

SURGE_HD NormalContact normal_contact(const DemParameters& p, float overlap, float normal_speed, float m_eff,
                                      float r_eff) {
  if (p.normal_model == NormalModel::linear) {
    const float k_n = p.stiffness;
    const float gamma_n =
        p.damping_from_restitution ? 2.0f * p.damping_ratio * sqrtf(k_n * m_eff) : p.normal_damping;
    return {k_n * overlap - gamma_n * normal_speed, k_n};
  }
  // Hertz: S_n = 2 E* sqrt(R* delta) is the contact's tangent stiffness, and 4/3 E* sqrt(R*) delta^(3/2)
  // = 2/3 S_n delta. Tsuji et al. (1992) damping, in the form gamma_n = 2 sqrt(5/6) beta sqrt(S_n m*)
  // with beta = -ln e / sqrt(pi^2 + ln^2 e) (Antypov & Elliott 2011 show the restitution it gives is e
  // to within a few per cent).
  const float s_n = 2.0f * p.effective_modulus * sqrtf(r_eff * overlap);
  const float gamma_n = p.damping_from_restitution ? 2.0f * 0.9128709f * p.damping_ratio * sqrtf(s_n * m_eff)
                                                   : p.normal_damping;
  return {(2.0f / 3.0f) * s_n * overlap - gamma_n * normal_speed, s_n};
}

}  // namespace surge
