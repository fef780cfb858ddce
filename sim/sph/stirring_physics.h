// The stirring hand (sph_setup.h, Stirring) as a body force, shared by every SPH solver: WCSPH adds it in
// its force pass, DFSPH to its non-pressure forces, PBF to its prediction.
#pragma once

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// The stirring hand's pull: a relaxation of the particle's velocity towards the hand's,
// a = w (u - v) / tau, with weight w = (1 - d^2/R^2)^2 falling smoothly to zero at the radius R.
// Stable for dt < tau (explicit relaxation), and bounded by |u - v| / tau.
SURGE_HD Vec3f stirring_acceleration(const Stirring& stirring, Vec3f x, Vec3f v) {
  if (stirring.radius <= 0.0f) return {};
  const float q2 = length_squared(x - stirring.center) / (stirring.radius * stirring.radius);
  if (q2 >= 1.0f) return {};
  const float weight = (1.0f - q2) * (1.0f - q2);
  return (weight / stirring.response_time) * (stirring.velocity - v);
}

}  // namespace surge
