// Initial conditions for gravitating systems: each generator appends bodies and velocities for one
// [[nbody.system]] of a scene, already moved to the system's centre and velocity.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "sim/core/vec.h"
#include "sim/nbody/gravity_physics.h"
#include "sim/nbody/nbody_scene.h"

namespace surge {

// Uniform doubles in [0, 1) from std::mt19937_64, whose sequence the C++ standard fixes; the conversion is
// spelled out because std::uniform_real_distribution's is implementation-defined. So every platform draws
// the same bodies from the same seed.
class UniformRandom {
 public:
  explicit UniformRandom(std::uint64_t seed) : engine_(seed) {}
  double next() { return double(engine_() >> 11) * 0x1.0p-53; }  // [0, 1), 53 random bits

 private:
  std::mt19937_64 engine_;
};

struct BodyList {
  std::vector<Body<double>> bodies;
  std::vector<Vec3d> velocities;
};

// A Plummer sphere in equilibrium, `count` bodies of equal mass (Aarseth, Henon & Wielen 1974).
void add_plummer_sphere(const BodySystem& system, long count, double gravitational_constant,
                        UniformRandom& random, BodyList& out);
// An exponential disc on circular orbits around an optional central point mass; `count` includes it.
void add_disc_galaxy(const BodySystem& system, long count, double gravitational_constant, double softening,
                     UniformRandom& random, BodyList& out);
// Two bodies on a Kepler ellipse, starting at apocentre, in the xy-plane.
void add_two_body(const BodySystem& system, double gravitational_constant, BodyList& out);

// Orbital period of a two-body system: T = 2 pi sqrt(a^3 / (G (m1 + m2))) (Kepler's third law).
double kepler_period(const BodySystem& system, double gravitational_constant);

}  // namespace surge
