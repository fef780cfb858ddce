#include "app/graphics/render_defaults.h"

#include <algorithm>
#include <cmath>
#include <variant>

namespace surge::app {

SceneLook scene_look(const std::vector<NamedValue>& parameters) {
  SceneLook look;
  for (const NamedValue& value : parameters) {
    const double* number = std::get_if<double>(&value.value);
    const Vec3f* vector = std::get_if<Vec3f>(&value.value);
    if (value.name == "spacing_m" && number) look.particle_radius = float(0.5 * *number);
    if (value.name == "rest_density_kg_per_m3" && number) look.rest_density = float(*number);
    if (value.name == "speed_of_sound_m_per_s" && number) look.speed_of_sound = float(*number);
    if (value.name == "domain_min_m" && vector) look.domain_min = *vector;
    if (value.name == "domain_max_m" && vector) look.domain_max = *vector;
    // A granular scene: grains of their own radii (polydisperse blocks), the largest as the fallback.
    if (value.name == "max_grain_radius_m" && number) {
      look.particle_radius = float(*number);
      look.radius_per_particle = true;
    }
  }
  return look;
}

namespace {

// The value below which `fraction` of `values` lie (values reordered).
float quantile(std::vector<float>& values, double fraction) {
  const auto k = std::size_t(std::clamp(fraction, 0.0, 1.0) * double(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(k), values.end());
  return values[k];
}

}  // namespace

SceneLook scene_look(Simulation& simulation) {
  SceneLook look = scene_look(simulation.parameters());
  look.has_domain = look.domain_max.x > look.domain_min.x && look.domain_max.y > look.domain_min.y &&
                    look.domain_max.z > look.domain_min.z;
  if (look.has_domain || simulation.fluid_count() == 0) return look;
  ParticleFrame frame;
  simulation.download(frame);  // once, at setup; the ledger records it
  std::vector<float> axis(frame.size());
  float low[3], high[3];
  for (int a = 0; a < 3; ++a) {
    for (std::size_t i = 0; i < frame.size(); ++i) axis[i] = (&frame.position[i].x)[a];
    low[a] = quantile(axis, 0.02);
    high[a] = quantile(axis, 0.98);
    const float grow = 0.1f * std::max(high[a] - low[a], 1e-6f);
    low[a] -= grow;
    high[a] += grow;
  }
  look.domain_min = {low[0], low[1], low[2]};
  look.domain_max = {high[0], high[1], high[2]};
  const double volume = double(high[0] - low[0]) * (high[1] - low[1]) * (high[2] - low[2]);
  look.particle_radius = float(0.25 * std::cbrt(volume / double(frame.size())));
  std::vector<float> speed(frame.size());
  for (std::size_t i = 0; i < frame.size(); ++i) speed[i] = std::sqrt(length_squared(xyz(frame.velocity[i])));
  look.max_speed = std::max(quantile(speed, 0.95), 1e-6f);
  double total_mass = 0;
  for (const Vec4f& body : frame.position) total_mass += double(body.w);
  look.mean_mass = float(total_mass / double(frame.size()));
  return look;
}

std::pair<float, float> default_color_range(render::ColorBy color_by, const SceneLook& look) {
  const float c0 = look.speed_of_sound, rho0 = look.rest_density;
  switch (color_by) {
    case render::ColorBy::speed:
      return {0.0f, look.max_speed > 0 ? look.max_speed : c0 / 10.0f};
    case render::ColorBy::pressure:
      return {0.0f, rho0 * c0 * c0 / 200.0f};
    case render::ColorBy::density:
      return {0.99f * rho0, 1.01f * rho0};
    case render::ColorBy::fixed:
      break;
  }
  return {0.0f, 1.0f};
}

ParticleScalar particle_scalar(render::ColorBy color_by) {
  switch (color_by) {
    case render::ColorBy::speed:
      return ParticleScalar::speed;
    case render::ColorBy::density:
      return ParticleScalar::density;
    case render::ColorBy::pressure:
      return ParticleScalar::pressure;
    case render::ColorBy::fixed:
      break;
  }
  return ParticleScalar::none;
}

void apply_render_look(const RenderLook& look, const SceneLook& scene, render::RenderSettings& settings) {
  settings.look = look;
  settings.has_box = scene.has_domain;
  settings.box_min = scene.domain_min;
  settings.box_max = scene.domain_max;
  settings.reference_mass = scene.mean_mass;
  if (scene.has_domain) settings.grid_spacing = floor_grid_spacing(scene.domain_min, scene.domain_max);
}

float floor_grid_spacing(Vec3f box_min, Vec3f box_max) {
  const Vec3f size = box_max - box_min;
  const float largest = std::max({size.x, size.y, size.z, 1e-6f});
  // The largest 1, 2 or 5 times a power of ten that fits eight times along the largest side.
  const float decade = std::pow(10.0f, std::floor(std::log10(largest / 8.0f)));
  for (const float step : {5.0f, 2.0f}) {
    if (step * decade <= largest / 8.0f) return step * decade;
  }
  return decade;
}

}  // namespace surge::app
