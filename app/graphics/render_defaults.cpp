#include "app/graphics/render_defaults.h"

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
  }
  return look;
}

std::pair<float, float> default_color_range(render::ColorBy color_by, const SceneLook& look) {
  const float c0 = look.speed_of_sound, rho0 = look.rest_density;
  switch (color_by) {
    case render::ColorBy::speed:
      return {0.0f, c0 / 10.0f};
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

}  // namespace surge::app
