// What a renderer draws of one fluid particle besides its position: the scalar it is coloured by, from the
// particle's state. Every GPU backend writes it straight into the renderer's buffers
// (copy_to_device_buffers).
#pragma once

#include <cmath>

#include "sim/backend/simulation.h"
#include "sim/core/hd.h"
#include "sim/core/vec.h"

namespace surge {

SURGE_HD float render_scalar(ParticleScalar scalar, Vec4f velocity, float density, float pressure) {
  switch (scalar) {
    case ParticleScalar::speed:
      return sqrtf(length_squared(xyz(velocity)));
    case ParticleScalar::density:
      return density;
    case ParticleScalar::pressure:
      return pressure;
    case ParticleScalar::none:
      break;
  }
  return 0.0f;
}

}  // namespace surge
