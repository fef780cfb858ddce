// The parameters of a granular (DEM) run as the contact law and the integrator read them: a small value
// type built once by build_dem_setup() and passed by value into every CPU loop and CUDA kernel.
// Units are SI; a scene in a model's own units (scenes/particles_box.toml) reads its numbers as SI,
// which only renames the units.
#pragma once

#include "sim/core/vec.h"

namespace surge {

// Normal force law: linear spring-dashpot (Cundall & Strack 1979) or Hertz with Tsuji's damping.
enum class NormalModel : int { linear, hertz };
// Tangential force: viscous-regularised Coulomb friction, a plain viscous shear with no Coulomb limit
// (the model of NVIDIA's `particles` sample), or a tangential spring with per-contact history truncated
// at the Coulomb limit (Cundall & Strack 1979; Mindlin's stiffness with the Hertz law:
// sim/dem/tangential_spring.h).
enum class FrictionModel : int { coulomb, viscous, mindlin };
// Walls on the faces of the domain box: planes with the grains' contact law, or the sample's reflection
// (position clamped, outward velocity reversed and scaled by the wall restitution).
enum class WallModel : int { contact, reflect };

struct DemParameters {
  NormalModel normal_model = NormalModel::linear;
  float stiffness = 0;          // k_n of the linear law [N/m]
  float effective_modulus = 0;  // E* = E / (2 (1 - nu^2)) of the Hertz law, equal materials [Pa]
  // Normal damping: from the restitution coefficient (damping_ratio) or a fixed dashpot (normal_damping).
  bool damping_from_restitution = true;
  float restitution = 0.5f;  // e (dimensionless)
  float damping_ratio = 0;   // zeta = -ln e / sqrt(pi^2 + ln^2 e) (dimensionless)
  float normal_damping = 0;  // gamma_n [N s/m], when not from the restitution
  FrictionModel friction_model = FrictionModel::coulomb;
  float friction = 0.5f;         // Coulomb coefficient mu (dimensionless)
  float tangential_damping = 0;  // gamma_t [N s/m]; 0 = sqrt(k_eff m_eff) per contact
  float cohesion = 0;            // attraction stiffness between touching grains [N/m]
  Vec3f gravity{};               // [m/s^2]
  float dt = 0;                  // time step [s]
  float collision_time = 0;      // t_c the time step was chosen from [s]
  float time_step_gravity = 0;   // |g| the Hertz collision time assumed for the fastest impact [m/s^2]
  WallModel wall_model = WallModel::contact;
  float wall_restitution = 0.5f;     // reflect walls: outward speed kept after a bounce (dimensionless)
  unsigned wall_mask = 0;            // bit f set: face f (Face order: x-, x+, y-, y+, z-, z+) is a wall
  Vec3f domain_min{}, domain_max{};  // [m]
  float max_radius = 0;              // largest grain radius, moving or fixed [m]; cells are 2x this

  // Mindlin friction: k_t = 8 G* sqrt(R* delta) with the Hertz law, G* = G / (2 (2 - nu)) for equal
  // materials, G = E / (2 (1 + nu)); k_t = tangential_stiffness_ratio x k_n with the linear law.
  float effective_shear_modulus = 0;               // G* [Pa]
  float tangential_stiffness_ratio = 2.0f / 7.0f;  // k_t / k_n of the linear law (dimensionless)
  // Grains rotate: angular velocity per grain, torque from the tangential forces (moment of inertia
  // 2/5 m r^2 of a solid sphere).
  bool rotation = false;
  float rolling_friction = 0;  // mu_r of the constant directional rolling torque (dimensionless)
  // Contact history (Mindlin friction): slots per grain, and the partner key of fixed grain b, which is
  // fixed_partner_base + b (moving grains are keyed by creation id: sim/dem/contact_history.h).
  unsigned contact_slots = 0;
  unsigned fixed_partner_base = 0;
};

}  // namespace surge
