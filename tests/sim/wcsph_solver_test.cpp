// WcsphSolver's lesson variant on the CPU, where this machine can run it: the split force pass (fluid loop,
// then the wall loop over the compacted list of wall-side particles, then XSPH and the maxima) adds the same
// terms in the same order as the single pass, so the particles agree bit for bit; the GPU runs the same
// template (tests/gpu/gpu_modes_test.cpp compares it with the CPU there). And free-slip walls ([domain]
// slip_walls): water sliding along them keeps its speed, where no-slip walls brake it.
#include "sim/sph/wcsph_solver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "sim/backend/cpu_executor.h"
#include "sim/backend/simulation_factory.h"
#include "sim/backend/solver_simulation.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

using CpuWcsph = SolverSimulation<CpuExecutor, WcsphSolver<CpuExecutor>>;

TEST(WcsphSolver, SplitForcePassGivesTheSinglePassBitForBit) {
  // The fountain: walls, a pool and the emitter's jet, so both the wall list and new particles take part.
  const SphSetup setup = build_setup(load_scene(SURGE_SOURCE_DIR "/scenes/fountain.toml"), 6000);
  CpuWcsph single(std::forward_as_tuple(setup, ForcePass::single), std::tuple<>());
  CpuWcsph split(std::forward_as_tuple(setup, ForcePass::split), std::tuple<>());
  EXPECT_NE(split.backend_name().find(", split force pass)"), std::string::npos) << split.backend_name();
  EXPECT_EQ(single.backend_name().find("split"), std::string::npos) << single.backend_name();
  for (int s = 0; s < 200; ++s) {
    single.step();
    split.step();
  }
  const StepStatus status = split.status();
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  EXPECT_EQ(status.step, single.status().step);
  EXPECT_EQ(status.time_s, single.status().time_s);
  ParticleFrame a, b;
  single.download(a);
  split.download(b);
  ASSERT_GT(a.size(), setup.fluid.size()) << "layers entered, so new particles took part";
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.position.data(), b.position.data(), a.size() * sizeof(Vec4f)), 0);
  EXPECT_EQ(std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(Vec4f)), 0);
  EXPECT_EQ(a.id, b.id);
}

// A channel 4 particles wide, open at both ends, its water sliding along x at 0.5 m/s from the start; after
// 0.03 s, the mean x velocity of the water in its middle third. Walls y-, y+ and z-, all free-slip or none.
double sliding_speed_after(bool slip) {
  const std::string text = std::string(R"(name = "channel"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.3, 0.04, 0.1]
walls = ["y-", "y+", "z-"]
)") + (slip ? "slip_walls = [\"y-\", \"y+\", \"z-\"]\n" : "") +
                           R"([resolution]
spacing = 0.01
[fluid]
viscosity_alpha = 0.1
speed_of_sound = 10.0
continuity_density = true
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.3, 0.04, 0.05]
velocity = [0.5, 0.0, 0.0]
)";
  const Scene scene = parse_scene(text, "channel.toml");
  auto simulation = make_simulation(scene, ExecutionMode::cpu, {});
  while (simulation->status().time_s < 0.03) {
    simulation->step();
    const StepStatus status = simulation->status();
    EXPECT_EQ(status.instability, Instability::none) << status.diagnosis();
    if (status.instability != Instability::none) return 0.0;
  }
  ParticleFrame frame;
  simulation->download(frame);
  double sum = 0;
  int count = 0;
  for (std::size_t i = 0; i < frame.size(); ++i) {
    if (frame.position[i].x < 0.1f || frame.position[i].x > 0.2f) continue;
    sum += frame.velocity[i].x;
    ++count;
  }
  EXPECT_GT(count, 100);
  return count > 0 ? sum / count : 0.0;
}

// Monaghan's term against wall particles at rest is a friction of about nu / dp^2 on the water beside them
// (nu = alpha h c0 / 10), which in a narrow flume brakes most of the water (wcsph_physics.h, on_slip_wall).
// Free-slip walls take no viscous term, so the sliding water keeps its speed but for the open ends' pull;
// no-slip walls brake it. Measured: 0.4996 m/s with free-slip walls, 0.4595 m/s (8 % lost) with no-slip.
TEST(WcsphSolver, FreeSlipWallsLeaveSlidingWaterItsSpeedNoSlipWallsBrakeIt) {
  const double slip = sliding_speed_after(true);
  const double no_slip = sliding_speed_after(false);
  std::printf("mean x velocity after 0.03 s: free-slip walls %.4f m/s, no-slip walls %.4f m/s\n", slip,
              no_slip);
  EXPECT_NEAR(slip, 0.5, 0.005);
  EXPECT_LT(no_slip, 0.48);
}

// The run's end and a bench's timed steps report WCSPH's average density excess, max(rho - rho0, 0) / rho0
// over the fluid, the measure DFSPH's density solve stops at (density_error_percent), so the two compare at
// equal density error: the figure is that average of the densities the particles download with, and it is
// neither zero nor above 2 % (c0 is chosen for density variations of about 1 %) in the dam break's collapse.
TEST(WcsphSolver, ReportsTheAverageDensityExcessDfsphStopsAt) {
  const SphSetup setup = build_setup(load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml"), 2000);
  auto simulation = make_wcsph_simulation(setup, ExecutionMode::cpu);
  for (int s = 0; s < 300; ++s) simulation->step();
  ASSERT_EQ(simulation->status().instability, Instability::none) << simulation->status().diagnosis();
  double reported = -1.0;
  for (const NamedValue& figure : simulation->step_figures())
    if (figure.name == "density_excess_percent") reported = std::get<double>(figure.value);
  ParticleFrame frame;
  simulation->download(frame);
  double excess = 0.0;
  for (float rho : frame.density) excess += std::max(double(rho) - 1000.0, 0.0);
  const double expected = 100.0 * excess / (double(frame.size()) * 1000.0);
  std::printf("dam break, 2,000 particles, 300 steps: density excess %.4f %% (from the frame %.4f %%)\n",
              reported, expected);
  EXPECT_NEAR(reported, expected, 1e-4 * expected + 1e-9);
  EXPECT_GT(reported, 0.0);
  EXPECT_LT(reported, 2.0);
}

}  // namespace
}  // namespace surge
