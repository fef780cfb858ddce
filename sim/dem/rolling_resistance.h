// Rolling resistance: the constant directional torque model (Ai, Chen, Rotter & Ooi 2011, model A):
//
//   tau_r = -mu_r R* max(F_n, 0) w_rel / |w_rel|,   w_rel = w_i - w_j (w_j = 0 for a wall or fixed grain)
//
// on grain i, and the opposite on j. A rolling sphere on a floor then decelerates at 5/7 mu_r g, and a
// sphere on an incline of tan(theta) < mu_r is held (tests/sim/dem_mindlin_test.cpp).
//
// The torque is constant while the grains roll, so near rest an explicit step would reverse the relative
// spin and the torque would flip sign every step (a chatter that never dies). Guard: the torque is capped at
//   I* |w_rel| / (n dt),  I* = I_i I_j / (I_i + I_j) (I_i for a wall or fixed grain),  n = 16.
// With n = 1 the cap is the torque that stops the pair's relative spin in this step (-tau on i and +tau on j
// change w_rel by tau dt (1/I_i + 1/I_j)), but a grain has many contacts: below the cap each contact acts as
// a linear damper on relative spin, and explicit Euler on a grain damped by k such dampers moves its spin by
// up to k / n of w_rel per step. With n = 1 and k >= 3 contacts that overshoots and grows (measured: a
// settled heap kept spinning at 0.4 rad/s); n = 16, the default number of history slots, keeps the step
// monotone for up to 16 contacts. The relative spin then decays by at least 1/16 per step (gone in ~100
// steps) instead of in one, which changes nothing measurable for a rolling grain: the cap only binds below
// |w_rel| = n mu_r R* F_n dt / I*.
#pragma once

#include <cmath>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/dem/dem_parameters.h"

namespace surge {

SURGE_HD Vec3f rolling_torque(const DemParameters& p, Vec3f relative_spin, float normal_force, float r_eff,
                              float inertia_eff) {
  const float spin2 = length_squared(relative_spin);
  if (p.rolling_friction <= 0.0f || spin2 == 0.0f) return Vec3f{};
  const float spin = sqrtf(spin2);
  const float resisting = p.rolling_friction * r_eff * fmaxf(normal_force, 0.0f);
  constexpr float kGuardContacts = 16.0f;  // n above
  const float magnitude = fminf(resisting, inertia_eff * spin / (kGuardContacts * p.dt));
  return (-magnitude / spin) * relative_spin;
}

}  // namespace surge
