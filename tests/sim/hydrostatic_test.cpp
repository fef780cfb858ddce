// A tank of water at rest, on the CPU backend: after it settles, the density holds and the pressure
// follows p = rho0 g d.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "sim/backend/simulation.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

Scene hydrostatic_tank(float spacing, float depth) {
  Scene scene;
  scene.name = "hydrostatic";
  scene.domain_min = {0.0f, 0.0f, 0.0f};
  scene.domain_max = {0.08f, 0.08f, depth + 0.1f};
  scene.walls = {true, true, true, true, true, false};
  scene.spacing = spacing;
  scene.viscosity_alpha = 0.1f;  // damps the start-up sloshing within the simulated second
  FluidBlock water;
  water.min = {0.0f, 0.0f, 0.0f};
  water.max = {0.08f, 0.08f, depth};
  scene.blocks = {water};
  return scene;
}

TEST(Hydrostatic, DensityHoldsAndPressureIsRhoGD) {
  const float spacing = 0.01f, depth = 0.24f;
  const SphSetup setup = build_setup(hydrostatic_tank(spacing, depth));
  auto sim = make_cpu_simulation(setup);
  ASSERT_EQ(sim->fluid_count(), 8u * 8u * 24u);
  const double rho0 = setup.params.rest_density, g = 9.81;
  // Released from an uncompressed lattice, the column rings with acoustic waves (period 4 H / c0, about
  // 0.045 s here) that artificial viscosity damps only slowly. After 0.5 s the pressure is averaged over
  // 0.25 s, more than five periods, so what remains is the hydrostatic mean, not a phase of the ringing.
  const double settle_s = 0.5, average_s = 0.25;
  std::map<int, std::pair<double, long>> layers;  // layer index -> (pressure sum, samples)
  double density_error_sum = 0, depth_sum = 0;
  long density_samples = 0, frames = 0;
  ParticleFrame frame;
  long step = 0;
  while (sim->status().time_s < settle_s + average_s) {
    sim->step();
    ASSERT_EQ(sim->status().instability, Instability::none) << sim->status().diagnosis();
    if (sim->status().time_s < settle_s || ++step % 20 != 0) continue;
    sim->download(frame);
    // The free surface where the water would stand at rest density: volume over the tank's floor area.
    // (The highest particle is no measure: one bouncing particle moves it by centimetres.)
    const double floor_area = 0.08 * 0.08;
    const double surface = double(frame.size()) * setup.params.particle_mass / rho0 / floor_area;
    depth_sum += surface;
    ++frames;
    for (std::size_t i = 0; i < frame.size(); ++i) {
      const double d = surface - frame.position[i].z;
      // Summation density is deficient within one support of the free surface (half the kernel is
      // empty there), so the density error is measured in the bulk below it.
      if (d > setup.params.support) {
        density_error_sum += std::abs(frame.density[i] / rho0 - 1.0);
        ++density_samples;
      }
      auto& layer = layers[int(std::floor(frame.position[i].z / spacing))];
      layer.first += frame.pressure[i];
      layer.second += 1;
    }
  }
  ASSERT_GT(frames, 10);
  double speed_sum = 0;
  for (const Vec4f& v : frame.velocity) speed_sum += std::sqrt(double(length_squared(xyz(v))));
  const double mean_speed = speed_sum / double(frame.size());
  const double surface = depth_sum / double(frames);  // the same every frame: mass is conserved
  const double mean_density_error = density_error_sum / double(density_samples);
  std::printf(
      "mean |rho/rho0 - 1| in the bulk: %.4f %%; surface at %.4f m; mean speed %.4f m/s, max %.4f m/s\n",
      100 * mean_density_error, surface, mean_speed, double(sim->status().max_speed));
  EXPECT_LT(mean_density_error, 0.01);
  // Settled: what still moves is the acoustic ringing of the release, whose speed scale is
  // g H / c0 (0.11 m/s here); a flow or a growing instability would exceed it.
  EXPECT_LT(mean_speed, g * depth / setup.params.speed_of_sound);

  // Layer-averaged pressure against rho0 g d, for layers at least a quarter of the depth down (nearer
  // the surface rho0 g d is small and a relative tolerance means little). Every particle of the layer
  // counts, those beside the walls too: the wall treatment must give the right pressure there.
  int checked = 0;
  for (const auto& [layer, sum] : layers) {
    const double z = (layer + 0.5) * spacing;
    const double d = surface - z;
    if (d < 0.25 * depth) continue;
    const double p = sum.first / double(sum.second), expected = rho0 * g * d;
    std::printf("depth %.3f m: p = %8.1f Pa, rho0 g d = %8.1f Pa (%+.2f %%)\n", d, p, expected,
                100 * (p / expected - 1));
    EXPECT_NEAR(p / expected, 1.0, 0.05) << "at depth " << d << " m";
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

}  // namespace
}  // namespace surge
