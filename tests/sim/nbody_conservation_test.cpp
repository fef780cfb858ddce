// The leapfrog n-body step conserves what it should: a Kepler orbit keeps its energy to 1e-6 and closes
// after one period; a Plummer sphere stays in virial equilibrium over several crossing times; all-pairs
// gravity conserves linear and angular momentum to rounding. All on the CPU backend in double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <variant>

#include "sim/backend/nbody_simulation.h"
#include "sim/backend/simulation.h"
#include "sim/nbody/body_generators.h"

namespace surge {
namespace {

double figure(const std::vector<NamedValue>& figures, const std::string& name) {
  for (const NamedValue& f : figures)
    if (f.name == name) return std::get<double>(f.value);
  ADD_FAILURE() << "no figure " << name;
  return std::nan("");
}

NbodySetup setup_of(const NbodyParameters& params, const BodyList& list) {
  NbodySetup setup;
  setup.params = params;
  setup.bodies = list.bodies;
  setup.velocities = list.velocities;
  return setup;
}

// Kepler orbit, e = 0.5, masses 1 and 0.001, G = 1, point masses, double precision; 20,000 steps per orbit
// (dt = T / 20000, as scenes/kepler.toml). Leapfrog's energy error on an orbit is bounded and oscillates
// (largest at pericentre), of order (dt / pericentre passage time)^2: 2.6e-5 at T/2000, so about 2.6e-7
// here, under the 1e-6 bound at every step. There is no secular drift: the error over ten orbits is no
// larger than during the first, and the energy back at apocentre after ten orbits differs from the start
// by far less than 1e-6 per orbit.
TEST(NbodyKepler, EnergyStaysWithinOnePartPerMillionOverTenOrbits) {
  BodySystem system;
  system.model = BodySystem::Model::two_body;
  system.masses[0] = 1.0;
  system.masses[1] = 0.001;
  system.semi_major_axis = 1.0;
  system.eccentricity = 0.5;
  BodyList list;
  add_two_body(system, 1.0, list);
  const double period = kepler_period(system, 1.0);
  const int steps_per_orbit = 20000;
  NbodyParameters params;
  params.softening = 0.0;
  params.dt = period / steps_per_orbit;
  auto simulation = make_cpu_nbody_simulation(setup_of(params, list));

  const Vec3d start = list.bodies[1].x - list.bodies[0].x;
  double worst_first_orbit = 0.0, worst = 0.0;
  for (int orbit = 0; orbit < 10; ++orbit) {
    for (int s = 0; s < steps_per_orbit; ++s) {
      simulation->step();
      const double change = std::abs(figure(simulation->step_figures(), "energy_change_relative"));
      worst = std::max(worst, change);
      if (orbit == 0) worst_first_orbit = worst;
    }
    if (orbit == 0) {
      // After one period the planet is back at apocentre.
      ParticleFrame frame;
      simulation->download(frame);
      const Vec3f separation = xyz(frame.position[1]) - xyz(frame.position[0]);
      const double miss =
          std::sqrt(std::pow(separation.x - start.x, 2) + std::pow(separation.y - start.y, 2));
      std::printf("after one period the separation misses its start by %.2e (of 1.5)\n", miss);
      EXPECT_LT(miss, 1e-3);
    }
  }
  const double drift_per_orbit =
      std::abs(figure(simulation->step_figures(), "energy_change_relative")) / 10.0;
  std::printf(
      "largest |E - E0| / |E0|: %.2e in the first orbit, %.2e over ten; at apocentre after ten "
      "orbits %.2e per orbit\n",
      worst_first_orbit, worst, drift_per_orbit);
  EXPECT_LT(drift_per_orbit, 1e-7);
  EXPECT_LT(worst, 1e-6);
  EXPECT_LT(worst, 1.5 * worst_first_orbit) << "no secular drift";
  EXPECT_GT(worst, 0.0) << "the energy was measured";
  const StepStatus status = simulation->status();
  EXPECT_EQ(status.step, 10 * steps_per_orbit);
  EXPECT_NEAR(status.time_s, 10 * period, 1e-9);
}

// A Plummer sphere of 1,024 bodies in Henon units (G = M = 1, E = -1/4, crossing time 2 sqrt(2)),
// softening 0.03 (5 % of the scale radius, so close encounters need no smaller step), dt = 0.02 (141 steps
// per crossing time). The virial
// ratio 2K/|W| starts at 1 up to sampling noise (about 1/sqrt(N)) and must stay within 5 % for three
// crossing times; the energy must hold to 1e-3.
TEST(NbodyPlummer, StaysInVirialEquilibriumForThreeCrossingTimes) {
  BodySystem system;
  system.model = BodySystem::Model::plummer;
  system.scale_radius = 3.0 * M_PI / 16.0;
  system.truncation = 10.0;
  BodyList list;
  UniformRandom random(2024);
  add_plummer_sphere(system, 1024, 1.0, random, list);
  NbodyParameters params;
  params.softening = 0.03;
  params.dt = 0.02;
  auto simulation = make_cpu_nbody_simulation(setup_of(params, list));
  const double crossing_time = 2.0 * std::sqrt(2.0);
  const int steps = int(std::ceil(3.0 * crossing_time / params.dt));
  double lowest = 10, highest = 0;
  for (int s = 0; s <= steps; ++s) {
    if (s % 25 == 0 || s == steps) {
      const auto figures = simulation->step_figures();
      const double ratio = figure(figures, "virial_ratio");
      lowest = std::min(lowest, ratio);
      highest = std::max(highest, ratio);
      if (s == 0) {
        EXPECT_NEAR(figure(figures, "total_energy"), -0.25, 0.02) << "Henon units";
      }
      if (s == steps) {
        EXPECT_LT(std::abs(figure(figures, "energy_change_relative")), 1e-3);
      }
    }
    if (s < steps) simulation->step();
  }
  std::printf("virial ratio 2K/|W| over %d steps (t = %.2f): between %.4f and %.4f\n", steps,
              steps * params.dt, lowest, highest);
  EXPECT_GT(lowest, 0.95);
  EXPECT_LT(highest, 1.05);
}

// Pairwise forces are equal and opposite, so the total momentum cannot change; they are central, so the
// angular momentum cannot either. Two Plummer spheres on a collision course, 20 steps.
TEST(NbodyMomentum, AllPairsConservesLinearAndAngularMomentum) {
  BodyList list;
  BodySystem a;
  a.model = BodySystem::Model::plummer;
  a.scale_radius = 0.3;
  a.truncation = 10;
  a.center = {-1.0, 0.2, 0.0};
  a.velocity = {0.5, 0.0, 0.1};
  BodySystem b = a;
  b.center = {1.0, -0.2, 0.0};
  b.velocity = {-0.5, 0.0, 0.0};
  UniformRandom random(5);
  add_plummer_sphere(a, 300, 1.0, random, list);
  add_plummer_sphere(b, 200, 1.0, random, list);
  NbodyParameters params;
  params.dt = 0.01;
  auto simulation = make_cpu_nbody_simulation(setup_of(params, list));
  for (int s = 0; s < 20; ++s) simulation->step();
  const auto figures = simulation->step_figures();
  // Momenta are of order 1; double rounding over 20 steps of 500 bodies stays near 1e-15.
  EXPECT_LT(figure(figures, "linear_momentum_change"), 1e-12);
  EXPECT_LT(figure(figures, "angular_momentum_change"), 1e-12);
  ParticleFrame frame;
  simulation->download(frame);
  double moved = 0;
  for (std::size_t i = 0; i < frame.size(); ++i)
    moved = std::max(moved, double(length_squared(xyz(frame.position[i]) -
                                                  Vec3f{float(list.bodies[i].x.x), float(list.bodies[i].x.y),
                                                        float(list.bodies[i].x.z)})));
  EXPECT_GT(std::sqrt(moved), 0.05) << "the bodies moved, so the comparison means something";
}

// Barnes-Hut's forces are not exactly pairwise, so momentum drifts, but only at the level of its force
// error: 1e-3 of the momentum scale sum m|v| after 20 steps at theta = 0.5.
TEST(NbodyMomentum, BarnesHutKeepsMomentumToItsForceError) {
  BodyList list;
  BodySystem a;
  a.model = BodySystem::Model::plummer;
  a.scale_radius = 0.3;
  a.truncation = 10;
  UniformRandom random(9);
  add_plummer_sphere(a, 2000, 1.0, random, list);
  NbodyParameters params;
  params.method = NbodyMethod::barnes_hut;
  params.theta = 0.5;
  params.dt = 0.01;
  auto simulation = make_cpu_nbody_simulation(setup_of(params, list));
  double scale = 0;
  for (std::size_t i = 0; i < list.bodies.size(); ++i)
    scale += list.bodies[i].m * std::sqrt(dot(list.velocities[i], list.velocities[i]));
  for (int s = 0; s < 20; ++s) simulation->step();
  const auto figures = simulation->step_figures();
  std::printf("Barnes-Hut momentum change after 20 steps: %.2e of sum m|v| = %.3f\n",
              figure(figures, "linear_momentum_change") / scale, scale);
  EXPECT_LT(figure(figures, "linear_momentum_change"), 1e-3 * scale);
  EXPECT_GT(figure(figures, "pair_interactions_per_step"), 0.0);
}

}  // namespace
}  // namespace surge
