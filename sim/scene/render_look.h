// How a scene asks to be drawn: its [render] table (docs/scenes.md). Plain numbers, no OpenGL: the renderer
// (render/fluid_surface.h) reads this struct, and its member initialisers are the defaults everywhere (the
// scene loader, the docs, `surge run --render`, the viewer's panel).
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "sim/core/parameter_spec.h"
#include "sim/core/vec.h"

namespace surge {

// spheres: each particle a shaded sphere, coloured by a quantity (every solver). surface: the fluid as one
// liquid surface (screen-space fluid rendering), with a floor, the tank as glass and a sky. glow: each
// particle a soft glowing sprite, added up where they overlap, as stars in a galaxy look (the default of
// n-body scenes).
enum class RenderStyle { spheres, surface, glow };
inline constexpr std::array<std::string_view, 3> kRenderStyleNames = {"spheres", "surface", "glow"};
std::optional<RenderStyle> parse_render_style(std::string_view name);
std::string_view render_style_name(RenderStyle style);

// How the surface style smooths the fluid's depth. bilateral: a spatial Gaussian times a range Gaussian
// (Tomasi & Manduchi 1998, as Green 2010). narrow_range: the narrow-range filter of Truong & Yuksel ("A
// Narrow-Range Filter for Screen-Space Fluid Rendering", I3D 2018), which ignores what lies far behind and
// clamps what lies in front, so a surface seen at a grazing angle is smoothed as much as one seen face-on.
enum class DepthFilter { bilateral, narrow_range };
inline constexpr std::array<std::string_view, 2> kDepthFilterNames = {"bilateral", "narrow_range"};
std::optional<DepthFilter> parse_depth_filter(std::string_view name);
std::string_view depth_filter_name(DepthFilter filter);

// How the surface style's per-particle passes (shadow map, thickness, depth) put the particles into their
// images. compute: splatted by a compute shader, each particle writing the few pixels it covers with image
// atomics (a minimum for depths, a fixed-point sum for the thickness), and the spray's particles listed for
// their own pass; the raster pipeline's fixed cost per point is not paid. sprites: drawn as point sprites
// through the raster pipeline, four times over every particle; the same pictures (render/fluid_surface.h).
enum class ParticlePasses { compute, sprites };
inline constexpr std::array<std::string_view, 2> kParticlePassesNames = {"compute", "sprites"};
std::optional<ParticlePasses> parse_particle_passes(std::string_view name);
std::string_view particle_passes_name(ParticlePasses passes);

struct RenderLook {
  RenderStyle style = RenderStyle::spheres;
  // Smoothing radius of the surface's depth, in particle radii; projected to pixels at each pixel's depth.
  float filter_radius = 3.0f;
  // The share of each of red, green and blue that is left after 1/absorption metres of water (Beer-Lambert):
  // a blue-green, as a pool of clear water looks (exaggerated: a real tank this size would look colourless).
  Vec3f color{0.40f, 0.75f, 0.90f};
  float absorption = 4.0f;  // [1/m]: how fast `color` builds up with thickness
  // How far what lies behind the water is shifted, in metres on screen per metre of water and unit tilt of
  // the surface; about 1 - 1/1.33 for water (a thin-lens approximation, not a ray trace).
  float refraction = 0.25f;
  bool spray = true;  // isolated particles as small bright points
  DepthFilter filter = DepthFilter::bilateral;
  // Towards the light (the sun), world space, z up; any length, z > 0. The sky's sun, the water's highlight,
  // the solids' shading and the floor's shadows follow it.
  Vec3f light_direction{-0.45f, -0.55f, 1.0f};
  bool shadows = true;  // surface style: the water's and the solids' soft shadows on the floor
  // Surface style: the shadow map, thickness and depth passes by compute splatting or point sprites.
  ParticlePasses particle_passes = ParticlePasses::compute;
  int line = 0;  // of the [render] table; 0 when the scene has none
};

std::span<const ParameterSpec<RenderLook>> render_parameter_specs();

}  // namespace surge
