// What a granular scene's [dem] table and its [[dem.block]] tables say (docs/scenes.md, "solver = dem"),
// in SI units, already range-checked. build_dem_setup() turns it into grains.
#pragma once

#include <vector>

#include "sim/core/vec.h"
#include "sim/dem/dem_parameters.h"

namespace surge {

// A region filled with grains on a cubic lattice of spacing 2 x the largest grain radius.
struct GrainBlock {
  enum class Shape { box, sphere, lattice };
  Shape shape = Shape::box;
  Vec3f min{}, max{};             // box corners [m]; a lattice block starts at min
  Vec3f center{};                 // sphere centre [m]
  float radius = 0.0f;            // sphere radius [m]
  long count = 0;                 // lattice: grains, on a cube of ceil(cbrt(count)) sites a side, x fastest
  float grain_radius = 0.0f;      // [m]
  float grain_radius_max = 0.0f;  // [m]; > grain_radius: radii drawn uniformly in between (polydisperse)
  float density = 0.0f;           // [kg/m^3]; 0 when the block gives a mass
  float mass = 0.0f;              // [kg] per grain; 0 when the block gives a density
  float jitter = 0.0f;            // random offset of each site, as a fraction of the grain radius
  Vec3f velocity{};               // initial velocity [m/s]
  bool fixed = false;             // fixed grains: walls, plates and obstacles built of grains
  // Lattice that does not fit in the domain (after --particles): false = halve the grain radius until it
  // fits; true = keep the radius and let reflecting walls clamp the grains outside at the first step, as
  // NVIDIA's `particles` sample does at 1M and 4M grains.
  bool clamp_overflow = false;
  int line = 0;  // line of the block's table in the scene file
};

struct DemScene {
  NormalModel normal_model = NormalModel::linear;
  float stiffness = 0.0f;        // linear k_n [N/m]; required for the linear law
  float youngs_modulus = 0.0f;   // Hertz E [Pa]; required for the Hertz law
  float poisson_ratio = 0.3f;    // Hertz nu (dimensionless)
  float restitution = 0.5f;      // e, sets the normal damping unless normal_damping is given
  float normal_damping = -1.0f;  // gamma_n [N s/m]; < 0 when absent
  FrictionModel friction_model = FrictionModel::coulomb;
  float friction = 0.5f;                           // mu (dimensionless)
  float tangential_damping = 0.0f;                 // gamma_t [N s/m]; 0 = sqrt(k_eff m*) per contact
  float cohesion = 0.0f;                           // [N/m]
  float tangential_stiffness_ratio = 2.0f / 7.0f;  // k_t / k_n, Mindlin friction with the linear law
  bool rotation = false;                           // default true with Mindlin friction
  float rolling_friction = 0.0f;                   // mu_r (dimensionless); needs rotation
  long contact_slots = 16;                         // history slots per grain, Mindlin friction
  WallModel wall_model = WallModel::contact;
  float wall_restitution = 0.5f;          // reflect walls (dimensionless)
  float time_step = 0.0f;                 // [s]; 0 = collision_time_fraction x the collision time
  float collision_time_fraction = 0.02f;  // (dimensionless)
  Vec3f gravity{0.0f, 0.0f, -9.81f};      // [m/s^2]
  std::vector<GrainBlock> blocks;         // [[dem.block]]
};

}  // namespace surge
