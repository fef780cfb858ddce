#include "sim/core/step_status.h"

#include <cstdio>
#include <string>

namespace surge {

namespace {
std::string format_vector(Vec3f v, const char* unit) {
  char text[96];
  std::snprintf(text, sizeof text, "(%.4g, %.4g, %.4g) %s", double(v.x), double(v.y), double(v.z), unit);
  return text;
}
// ", density 612.3 kg/m^3" where the solver has one: far below rest density, the particle was pulled.
std::string density_text(float rho) {
  if (!(rho > 0.0f)) return {};
  char text[48];
  std::snprintf(text, sizeof text, ", density %.4g kg/m^3", double(rho));
  return text;
}
}  // namespace

std::string StepStatus::diagnosis() const {
  if (instability == Instability::none) return {};
  const std::string where = "step " + std::to_string(bad_step) + ": particle " + std::to_string(bad_particle);
  const std::string state = " (position " + format_vector(bad_position, "m") + ", velocity " +
                            format_vector(bad_velocity, "m/s") + ", acceleration " +
                            format_vector(bad_acceleration, "m/s^2") + density_text(bad_density) + ")";
  if (!remedy.empty()) {
    const char* what = instability == Instability::nan_value     ? " has a non-finite position or velocity"
                       : instability == Instability::left_domain ? " left the domain"
                                                                 : " stopped the run";
    return where + what + state + ": " + remedy;
  }
  switch (instability) {
    case Instability::nan_value:
      return where + " has a non-finite position or velocity" + state +
             ": the time step was too large for the forces; lower [time] cfl or dt_max";
    case Instability::left_domain:
      return where + " left the domain" + state +
             ": it passed through a wall or an open face; check the walls, or raise the speed of sound";
    case Instability::dt_collapse: {
      char dt[64];
      std::snprintf(dt, sizeof dt, "%.3g s", double(dt_s));
      return "step " + std::to_string(bad_step) + ": the time step collapsed to " + dt +
             ", below [time] dt_min; the largest acceleration is at particle " +
             std::to_string(bad_particle) + state;
    }
    case Instability::none:
      break;
  }
  return {};
}

}  // namespace surge
