// The conserved quantities of an n-body system, summed in double: energy (kinetic + potential), linear and
// angular momentum, and the virial ratio 2K/|W|, which is 1 for a system in equilibrium (virial theorem).
#pragma once

#include <string>
#include <vector>

#include "sim/core/vec.h"
#include "sim/nbody/gravity_physics.h"

namespace surge {

struct NamedValue;

struct NbodyEnergy {
  double kinetic = 0;        // K = sum 1/2 m v^2
  double potential = 0;      // W = 1/2 sum m_i phi_i (each pair once)
  Vec3d momentum{};          // P = sum m v
  Vec3d angular_momentum{};  // L = sum m x cross v, about the origin
  double total() const { return kinetic + potential; }
  double virial_ratio() const { return potential != 0 ? 2.0 * kinetic / -potential : 0.0; }
};

// From bodies, their velocities and the potential at each body (including G, without its own term).
template <typename T>
NbodyEnergy measure_energy(const std::vector<Body<T>>& bodies, const std::vector<Vec3<T>>& velocities,
                           const std::vector<T>& potential);

// One body's share, for reductions that add bodies in any order (the GPU's).
SURGE_HD NbodyEnergy body_energy(Vec3d x, Vec3d v, double m, double phi) {
  NbodyEnergy e;
  e.kinetic = 0.5 * m * dot(v, v);
  e.potential = 0.5 * m * phi;
  e.momentum = v * m;
  e.angular_momentum = Vec3d{x.y * v.z - x.z * v.y, x.z * v.x - x.x * v.z, x.x * v.y - x.y * v.x} * m;
  return e;
}
SURGE_HD NbodyEnergy operator+(const NbodyEnergy& a, const NbodyEnergy& b) {
  NbodyEnergy s;
  s.kinetic = a.kinetic + b.kinetic;
  s.potential = a.potential + b.potential;
  s.momentum = a.momentum + b.momentum;
  s.angular_momentum = a.angular_momentum + b.angular_momentum;
  return s;
}

// The figures Simulation::step_figures() reports: energies, their change since the start, momenta and the
// virial ratio.
std::vector<NamedValue> energy_figures(const NbodyEnergy& now, const NbodyEnergy& initial);

}  // namespace surge
