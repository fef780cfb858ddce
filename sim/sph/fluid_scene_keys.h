// What a scene's [resolution], [fluid] and [time] tables say (docs/scenes.md), in SI units, already
// range-checked: the keys of the SPH family, declared with their table in fluid_parameter_specs.cpp.
// Scene (sim/scene/scene.h) is these keys plus the rest of the file; build_setup() derives the run's
// SphParameters from them.
#pragma once

#include "sim/core/vec.h"
#include "sim/sph/kernels.h"

namespace surge {

struct FluidSceneKeys {
  // [resolution]: exactly one of spacing and particles is given in the file.
  float spacing = 0.0f;        // particle spacing [m]; 0 when the scene gives a particle count
  long target_particles = 0;   // target fluid particle count; 0 when the scene gives a spacing
  float support_ratio = 2.0f;  // kernel support radius / spacing (dimensionless)
  KernelType kernel = KernelType::cubic_spline;
  int cells_per_support = 1;  // cell index: cells across the support, 1 or 2 (GridGeometry)
  // [fluid]
  float rest_density = 1000.0f;       // [kg/m^3]
  float speed_of_sound = 0.0f;        // [m/s]; 0 = derived from the scene (10 x the largest expected speed)
  float tait_exponent = 7.0f;         // gamma in p = B((rho/rho0)^gamma - 1) (dimensionless)
  float viscosity_alpha = 0.02f;      // Monaghan artificial viscosity alpha (dimensionless)
  float xsph_epsilon = 0.0f;          // XSPH velocity smoothing epsilon (dimensionless)
  bool continuity_density = false;    // WCSPH density from the continuity equation instead of summation
  float density_diffusion = 0.1f;     // delta-SPH delta with continuity_density (dimensionless)
  Vec3f gravity{0.0f, 0.0f, -9.81f};  // [m/s^2]
  // [time]
  float end_time = 1.0f;  // simulated time of a run [s]
  float cfl = 0.25f;      // Courant number for dt = cfl * h / (c0 + v_max) (dimensionless)
  float dt_max = 1e-3f;   // [s]
  float dt_min = 1e-7f;   // [s]; an adaptive step below this is a collapse and ends the run
};

}  // namespace surge
