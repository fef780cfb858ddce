// How a scene looks by default: particle radius, colour ranges and camera from the solver's parameters.
#pragma once

#include <utility>
#include <vector>

#include "render/camera.h"
#include "render/color_map.h"
#include "render/particle_renderer.h"
#include "sim/backend/simulation.h"

namespace surge::app {

struct SceneLook {
  float particle_radius = 0.005f;  // [m]: half the particle spacing, so a still fluid looks closed
  Vec3f domain_min{}, domain_max{};
  float rest_density = 1000.0f;      // [kg/m^3]
  float speed_of_sound = 10.0f;      // [m/s]
  float max_speed = 0.0f;            // the speed colour bar's top; 0: c0 / 10 (the fluids' expected largest)
  bool radius_per_particle = false;  // grains: each drawn at its own radius (position.w)
  bool has_domain = false;           // the solver reports a box (the tank); n-body does not
  float mean_mass = 0.0f;            // of the bodies (n-body, whose position.w is the mass); 0: not known
};
SceneLook scene_look(const std::vector<NamedValue>& parameters);

// The same for a running simulation. A solver that reports no domain (n-body: bodies in G = 1 units, no
// box) is framed by its bodies instead, read once: the box that holds 96 % of them on each axis, grown by
// a tenth; spheres a quarter of the mean spacing in it; speeds coloured up to their 95th percentile; the
// bodies' mean mass, for the glow style's sprites (each sized and lit by its mass over it).
SceneLook scene_look(Simulation& simulation);

// The colour bar's range for a quantity: speed 0..c0/10 (the largest expected speed, as c0 is chosen
// 10x larger), pressure 0..rho0 c0^2/200 (the hydrostatic pressure at the bottom of a column whose
// free-fall speed is c0/10: rho0 g H = rho0 v^2 / 2), density rho0 +- 1 % (weakly compressible).
std::pair<float, float> default_color_range(render::ColorBy color_by, const SceneLook& look);

ParticleScalar particle_scalar(render::ColorBy color_by);

// The style and surface parameters in `look` (a scene's [render] with the command line's over it), and the
// surface style's scene: the domain as the glass tank over a floor whose grid lines are a round number of
// metres apart (1, 2 or 5 times a power of ten), an eighth to a twentieth of the tank's largest side.
void apply_render_look(const RenderLook& look, const SceneLook& scene, render::RenderSettings& settings);
float floor_grid_spacing(Vec3f box_min, Vec3f box_max);

}  // namespace surge::app
