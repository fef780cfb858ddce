// Everything a backend needs to start a weakly compressible SPH run: the parameters in SI units,
// the initial fluid particles and the static boundary particles. build_setup()
// (sim/setup/build_fluid_setup.h) makes it from a Scene.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/particle_frame.h"
#include "sim/core/vec.h"
#include "sim/index/grid_geometry.h"
#include "sim/sph/body_motion.h"
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
  // Free-slip walls ([domain] slip_walls): one bit per domain face, 1 << face in the order x-, x+, y-, y+,
  // z-, z+. A wall particle beyond such a face takes no viscous term (wcsph_physics.h, on_slip_wall).
  std::uint32_t slip_faces = 0;
  Stirring stirring;  // off unless a viewer sets it
};

// The scene's [[solid]]s as bodies (sim/sph/solid_bodies.h): every solid is one, fixed or not, so a force
// gauge can sum the fluid's force on any of them. Their particles are among SphSetup::boundary (at rest,
// sorted with the walls); these arrays name them.
struct SolidBodySetup {
  std::string name;
  BodyMotion motion;
  BodyState initial;                   // the rest pose: c0, identity orientation, at rest
  std::uint32_t first = 0, count = 0;  // its particles: [first, first + count) of SolidBodiesSetup's arrays
  // Its surface for drawing (solid_surface.h): three corners per triangle, relative to initial.center [m].
  std::vector<Vec3f> surface;
};
struct SolidBodiesSetup {
  std::vector<SolidBodySetup> bodies;
  std::vector<Vec4f> offset;                  // per body particle: x_rest - c0 [m]; w = its volume [m^3]
  std::vector<std::uint32_t> boundary_index;  // per body particle: its index in SphSetup::boundary
  std::vector<std::uint32_t> body;            // per body particle: its body
  std::vector<MotionTableRow> table;          // the table motions' rows, each body's at its table_first
  bool any(MotionKind kind) const {
    for (const SolidBodySetup& b : bodies)
      if (b.motion.kind == kind) return true;
    return false;
  }
  // Whether any solid moves: then the boundary particles are placed and indexed again every step.
  bool any_moving() const {
    for (const SolidBodySetup& b : bodies)
      if (b.motion.kind != MotionKind::fixed) return true;
    return false;
  }
};

struct SphSetup {
  SphParameters params;
  GridGeometry grid;
  ParticleFrame fluid;  // initial state; id = creation index
  // rho0 g depth of each initial fluid particle: its depth below the top of its box block along gravity (the
  // water at rest in it), 0 in a sphere block (a falling drop) [Pa]. Empty without gravity and for fluid
  // given in a frame.
  std::vector<float> hydrostatic_pressure;
  std::vector<Vec4f> boundary;  // sorted by cell; positions [m]; w = Akinci volume V_b [m^3]
  std::vector<std::uint32_t> boundary_cell_start;  // cell index of `boundary` (cell_count + 1 entries)
  EmitterSetup emitter;                            // present when the scene has an [[emitter]]
  SolidBodiesSetup solids;                         // the [[solid]]s' particles among `boundary`
  // Fluid particles a backend allocates: the initial ones plus the emitter's.
  std::size_t capacity() const { return fluid.size() + (emitter.present ? emitter.max_particles : 0); }
};

// Bytes of device memory per fluid and per boundary particle, for "how many fit" messages.
std::size_t device_bytes_per_fluid_particle();
std::size_t device_bytes_per_boundary_particle();

}  // namespace surge
