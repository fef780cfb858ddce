// The [render] table (render_look.h): how `surge run --render` and `surge view` draw the scene unless the
// command line says otherwise.
#include <array>

#include "sim/scene/family_readers.h"
#include "sim/scene/render_look.h"

namespace surge {

namespace {

using RenderSpec = ParameterSpec<RenderLook>;

constexpr std::array kRenderParameters = {
    RenderSpec{.key = "filter_radius",
               .member = &RenderLook::filter_radius,
               .range = ValueRange::closed(0, 10),
               .description = "surface style: radius of the depth smoothing, in particle radii (0: none); "
                              "larger is smoother and rounder, and loses small ripples"},
    RenderSpec{.key = "color",
               .member = &RenderLook::color,
               .range = ValueRange::left_open(0, 1),
               .description = "surface style: the share of red, green and blue light left after "
                              "1/`absorption` metres of water (Beer–Lambert)"},
    RenderSpec{.key = "absorption",
               .member = &RenderLook::absorption,
               .unit = "1/m",
               .range = ValueRange::closed(0, 1000),
               .description = "surface style: how fast `color` builds up with the water's thickness; 0 is "
                              "perfectly clear water"},
    RenderSpec{.key = "refraction",
               .member = &RenderLook::refraction,
               .range = ValueRange::closed(0, 2),
               .description = "surface style: how far what lies behind the water is shifted, per metre of "
                              "water and unit tilt of its surface (about 1 − 1/1.33 for water; 0: none)"},
    RenderSpec{.key = "spray",
               .member = &RenderLook::spray,
               .description = "surface style: isolated particles drawn as small bright points rather than "
                              "as part of the surface"},
    RenderSpec{.key = "light_direction",
               .member = &RenderLook::light_direction,
               .range = ValueRange::closed(-100, 100),
               .description = "towards the light (the sun), world axes, z up; any length, z > 0: the sky's "
                              "sun, the highlights, the solids' shading and the floor's shadows follow it"},
    RenderSpec{.key = "shadows",
               .member = &RenderLook::shadows,
               .description = "surface style: the water and the solids cast soft shadows on the floor, the "
                              "water's partial (it is clear), a solid's full"},
};

}  // namespace

std::optional<RenderStyle> parse_render_style(std::string_view name) {
  for (std::size_t i = 0; i < kRenderStyleNames.size(); ++i)
    if (kRenderStyleNames[i] == name) return RenderStyle(i);
  return std::nullopt;
}

std::string_view render_style_name(RenderStyle style) {
  return kRenderStyleNames[static_cast<std::size_t>(style)];
}

std::optional<DepthFilter> parse_depth_filter(std::string_view name) {
  for (std::size_t i = 0; i < kDepthFilterNames.size(); ++i)
    if (kDepthFilterNames[i] == name) return DepthFilter(i);
  return std::nullopt;
}

std::string_view depth_filter_name(DepthFilter filter) {
  return kDepthFilterNames[static_cast<std::size_t>(filter)];
}

std::optional<ParticlePasses> parse_particle_passes(std::string_view name) {
  for (std::size_t i = 0; i < kParticlePassesNames.size(); ++i)
    if (kParticlePassesNames[i] == name) return ParticlePasses(i);
  return std::nullopt;
}

std::string_view particle_passes_name(ParticlePasses passes) {
  return kParticlePassesNames[static_cast<std::size_t>(passes)];
}

std::span<const ParameterSpec<RenderLook>> render_parameter_specs() {
  return kRenderParameters;
}

void read_render(const TableReader& render, Scene& scene) {
  render.reject_unknown_keys(keys_of(render_parameter_specs(), {"style", "filter", "particle_passes"}));
  RenderLook& look = scene.render;
  look.line = render.table_line();
  // Stars glow: n-body scenes are drawn so unless they ask otherwise.
  if (scene.solver == SolverKind::nbody) look.style = RenderStyle::glow;
  if (auto style = render.choice("style", kRenderStyleNames)) {
    look.style = *parse_render_style(*style);
    if (look.style == RenderStyle::surface && !is_fluid_solver(scene.solver)) {
      render.fail("style", "\"surface\" draws a liquid; this scene's solver is \"" +
                               std::string(solver_name(scene.solver)) +
                               "\" (its particles are drawn as spheres)");
    }
  }
  if (auto filter = render.choice("filter", kDepthFilterNames)) look.filter = *parse_depth_filter(*filter);
  if (auto passes = render.choice("particle_passes", kParticlePassesNames))
    look.particle_passes = *parse_particle_passes(*passes);
  read_parameters(render, render_parameter_specs(), look);
  if (!(look.light_direction.z > 0))
    render.fail("light_direction", "must point up (z > 0): the light shines down on the floor");
}

}  // namespace surge
