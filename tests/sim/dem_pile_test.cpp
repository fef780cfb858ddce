// A bed of grains settling on the floor of a closed box: the contacts dissipate, so the kinetic energy,
// after the first rearrangement, decays towards zero and the bed comes to rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "sim/backend/dem_simulation.h"
#include "sim/dem/dem_setup.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"

namespace surge {
namespace {

double kinetic_energy(const ParticleFrame& frame) {
  double energy = 0;
  for (std::size_t i = 0; i < frame.size(); ++i)
    energy += 0.5 * frame.velocity[i].w * double(length_squared(xyz(frame.velocity[i])));
  return energy;
}

TEST(DemPile, KineticEnergyOfARestingBedDecaysToZero) {
  // 10 x 10 x 5 grains of radii 3 - 5 mm, jittered by up to half a radius on a lattice 1 cm apart, rain
  // onto the floor of a closed box and settle into a bed.
  //
  // The grains are frictionless on purpose. Surge's viscous-regularised friction has no static friction
  // (sim/dem/tangential_friction.h), so a frictional heap creeps: measured with friction 0.5, the kinetic
  // energy of this bed hovers around 1e-4 M g r for a second instead of decaying. A frictionless bed jams
  // into a packing held by normal forces alone, and then it must come to rest: energy the integrator or
  // the contact law injected would show here.
  const std::string text = R"(solver = "dem"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.2]
[dem]
stiffness = 500.0
restitution = 0.3
friction = 0.0
gravity = [0.0, 0.0, -9.81]
collision_time_fraction = 0.05
[[dem.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.05]
grain_radius = 0.003
grain_radius_max = 0.005
density = 2500.0
jitter = 0.5
)";
  const Scene scene = parse_scene(text, "pile.toml");
  const DemSetup setup = build_dem_setup(scene);
  ASSERT_EQ(setup.grains.size(), 500u);
  auto simulation = make_dem_cpu_simulation(setup);
  double mass = 0;
  for (const Vec4f& v : setup.grains.velocity) mass += v.w;
  // Energy scale: the whole bed lifted by one largest grain radius.
  const double reference = mass * 9.81 * 0.005;

  const long steps_per_sample = long(0.02 / setup.params.dt);  // every 20 ms of simulated time
  std::vector<double> energy;
  ParticleFrame frame;
  for (int sample = 0; sample < 60; ++sample) {  // 1.2 s
    for (long s = 0; s < steps_per_sample; ++s) simulation->step();
    ASSERT_EQ(simulation->status().instability, Instability::none) << simulation->status().diagnosis();
    simulation->download(frame);
    energy.push_back(kinetic_energy(frame));
  }
  const auto mean = [&](std::size_t first, std::size_t last) {
    double sum = 0;
    for (std::size_t k = first; k < last; ++k) sum += energy[k];
    return sum / double(last - first);
  };
  const double peak = *std::max_element(energy.begin(), energy.end());
  std::printf(
      "kinetic energy / (M g r): peak %.3e; mean over 0.2-0.4 s %.3e, over 1.0-1.2 s %.3e; at 1.2 s %.3e\n",
      peak / reference, mean(10, 20) / reference, mean(50, 60) / reference, energy.back() / reference);
  EXPECT_GT(peak, 1e-2 * reference) << "the grains did fall: the test is not trivially at rest";
  EXPECT_LT(mean(50, 60), 1e-2 * mean(10, 20)) << "decaying: two orders of magnitude in 0.8 s";
  EXPECT_LT(energy.back(), 2e-5 * reference) << "and near zero: measured 2.3e-6 M g r at 1.2 s";
  // The bed rests on the floor: no grain below it, none flung out.
  for (std::size_t i = 0; i < frame.size(); ++i) {
    EXPECT_GT(frame.position[i].z, 0.9f * frame.position[i].w);
    EXPECT_LT(frame.position[i].z, 0.06f);
  }
}

}  // namespace
}  // namespace surge
