// What a renderer draws of a particle besides its position, and the device memory it is written into. Every
// solver on a GPU executor writes these straight into the renderer's buffers (Simulation::
// copy_to_device_buffers), so a frame never crosses the bus.
#pragma once

#include <cmath>

#include "sim/core/hd.h"
#include "sim/core/vec.h"

namespace surge {

// A per-particle quantity a viewer colours by, computed where the particles live.
enum class ParticleScalar { none, speed, density, pressure };

// Device memory a caller owns (e.g. an OpenGL buffer mapped by CUDA-GL interop), fluid_count() entries each.
struct DeviceParticleTargets {
  Vec4f* d_position = nullptr;  // xyz [m]; w unspecified
  float* d_scalar = nullptr;    // the chosen quantity in SI units, or nullptr
  ParticleScalar scalar = ParticleScalar::none;
};

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
