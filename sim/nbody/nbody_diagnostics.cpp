#include "sim/nbody/nbody_diagnostics.h"

#include <cmath>

#include "sim/core/named_value.h"

namespace surge {

namespace {

Vec3f to_float(Vec3d v) {
  return {float(v.x), float(v.y), float(v.z)};
}

double length(Vec3d v) {
  return std::sqrt(dot(v, v));
}

}  // namespace

template <typename T>
NbodyEnergy measure_energy(const std::vector<Body<T>>& bodies, const std::vector<Vec3<T>>& velocities,
                           const std::vector<T>& potential) {
  NbodyEnergy sum;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const Vec3d x{double(bodies[i].x.x), double(bodies[i].x.y), double(bodies[i].x.z)};
    const Vec3d v{double(velocities[i].x), double(velocities[i].y), double(velocities[i].z)};
    sum = sum + body_energy(x, v, double(bodies[i].m), double(potential[i]));
  }
  return sum;
}

template NbodyEnergy measure_energy(const std::vector<Body<float>>&, const std::vector<Vec3<float>>&,
                                    const std::vector<float>&);
template NbodyEnergy measure_energy(const std::vector<Body<double>>&, const std::vector<Vec3<double>>&,
                                    const std::vector<double>&);

std::vector<NamedValue> energy_figures(const NbodyEnergy& now, const NbodyEnergy& initial) {
  const double e0 = initial.total();
  return {{"kinetic_energy", now.kinetic},
          {"potential_energy", now.potential},
          {"total_energy", now.total()},
          {"energy_change_relative", e0 != 0 ? (now.total() - e0) / std::abs(e0) : 0.0},
          {"virial_ratio", now.virial_ratio()},
          {"linear_momentum", to_float(now.momentum)},
          {"linear_momentum_change", length(now.momentum - initial.momentum)},
          {"angular_momentum", to_float(now.angular_momentum)},
          {"angular_momentum_change", length(now.angular_momentum - initial.angular_momentum)}};
}

}  // namespace surge
