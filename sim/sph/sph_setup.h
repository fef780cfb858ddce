// Everything a backend needs to start a weakly compressible SPH run: the parameters in SI units,
// the initial fluid particles and the static boundary particles. build_setup()
// (sim/setup/build_fluid_setup.h) makes it from a Scene.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/particle_frame.h"
#include "sim/core/vec.h"
#include "sim/index/grid_geometry.h"
#include "sim/sph/emitter.h"
#include "sim/sph/kernels.h"

namespace surge {

// A hand in the water: fluid within `radius` of `center` is pulled towards `velocity`, most strongly at the
// centre. Set live by a viewer (mouse drag); radius 0 = off.
struct Stirring {
  Vec3f center{};               // [m]
  float radius = 0;             // [m]
  Vec3f velocity{};             // [m/s] the hand's velocity
  float response_time = 0.02f;  // [s] how fast particles at the centre take the hand's velocity
};

struct SphParameters {
  KernelType kernel = KernelType::cubic_spline;
  float spacing = 0;          // particle spacing [m]
  float support = 0;          // kernel support radius H [m]
  float rest_density = 1000;  // rho0 [kg/m^3]
  float particle_mass = 0;    // [kg]
  float speed_of_sound = 0;   // c0 [m/s]
  float tait_exponent = 7;    // gamma (dimensionless)
  float tait_stiffness = 0;   // B = rho0 c0^2 / gamma [Pa]
  float viscosity_alpha = 0;  // Monaghan alpha (dimensionless)
  float xsph_epsilon = 0;     // (dimensionless)
  // WCSPH's density: false = summation (Akinci et al. 2012, eq. 5); true = the continuity equation, with
  // delta-SPH density diffusion of strength density_diffusion (wcsph_physics.h).
  bool continuity_density = false;
  float density_diffusion = 0.1f;    // delta (dimensionless); read only with continuity_density
  Vec3f gravity{};                   // [m/s^2]
  float cfl = 0.25f;                 // (dimensionless)
  float dt_max = 1e-3f;              // [s]
  float dt_min = 1e-7f;              // [s]
  Vec3f domain_min{}, domain_max{};  // a fluid particle outside this box (plus one support) has escaped [m]
  Stirring stirring;                 // off unless a viewer sets it
};

struct SphSetup {
  SphParameters params;
  GridGeometry grid;
  ParticleFrame fluid;          // initial state; id = creation index
  std::vector<Vec4f> boundary;  // sorted by cell; positions [m]; w = Akinci volume V_b [m^3]
  std::vector<std::uint32_t> boundary_cell_start;  // cell index of `boundary` (cell_count + 1 entries)
  EmitterSetup emitter;                            // present when the scene has an [[emitter]]
  // Fluid particles a backend allocates: the initial ones plus the emitter's.
  std::size_t capacity() const { return fluid.size() + (emitter.present ? emitter.max_particles : 0); }
};

// Bytes of device memory per fluid and per boundary particle, for "how many fit" messages.
std::size_t device_bytes_per_fluid_particle();
std::size_t device_bytes_per_boundary_particle();

}  // namespace surge
