// The tangential force at a contact: viscous-regularised Coulomb friction.
//
//   F_t = -min(gamma_t |v_t|, mu max(F_n, 0)) v_t / |v_t|
//
// v_t is the tangential relative velocity at the contact point (the tangential part of v_i - v_j, plus the
// grains' spin with [dem] rotation: sim/dem/tangential_spring.h). A sliding contact feels the full Coulomb
// force mu F_n; below the speed mu F_n / gamma_t friction becomes a stiff viscous drag that brings the
// contact to rest.
//
// This is the stateless choice; friction_model = "mindlin" (sim/dem/tangential_spring.h) is the tangential
// spring with a per-contact history (Cundall & Strack), which costs history slots per grain (512 B of memory
// at 16 slots, and 32 B per contact per step read and written on the GPU: docs/perf/) but holds a heap still.
// The viscous form needs no state, so the step stays a stateless gather over the cell grid. What it cannot
// do is hold a grain at rest on a slope indefinitely: it creeps at a speed mu F_n / gamma_t times the ratio
// of driving to resisting force. The default gamma_t = sqrt(k_eff m*), half the critical damping of
// tangential motion at the normal stiffness, keeps that creep small while the explicit step stays stable for
// a grain with a dozen contacts (each adds gamma_t dt / m = 2 pi zeta_t f to the decay per step at dt = f
// t_c; a dozen at zeta_t = 1, f = 0.05 would reach the limit of 2). The sliding distance of a grain on a
// floor equals the Coulomb value v0^2 / (2 mu g) up to mu g m / gamma_t^2, nanometres in the test
// (tests/sim/dem_contact_test.cpp).
//
// The viscous model has no Coulomb limit: F_t = -gamma_t v_t, as NVIDIA's `particles` sample's shear.
#pragma once

#include <cmath>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/dem/dem_parameters.h"

namespace surge {

SURGE_HD Vec3f tangential_force(const DemParameters& p, Vec3f v_t, float normal_force, float stiffness,
                                float m_eff) {
  const float gamma_t = p.tangential_damping > 0.0f ? p.tangential_damping : sqrtf(stiffness * m_eff);
  Vec3f f = -gamma_t * v_t;
  if (p.friction_model == FrictionModel::coulomb) {
    const float limit = p.friction * fmaxf(normal_force, 0.0f);
    const float f2 = length_squared(f);
    if (f2 > limit * limit) f = (limit / sqrtf(f2)) * f;
  }
  return f;
}

}  // namespace surge
