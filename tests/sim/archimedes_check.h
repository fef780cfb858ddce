// Archimedes, shared by the CPU test (tests/sim/moving_solids_test.cpp) and the GPU one at a finer
// spacing (tests/gpu/moving_solids_gpu_test.cpp): two cubes of side a = 0.08 m, one of half the water's
// density, one of 1.5 times, in a pool 0.16 m deep. The light one is let go near its equilibrium (its
// bottom 1 cm above it); its draft is the water's level minus its bottom, averaged over t in [1, 2] s of a
// 2 s run: the first second is not settled, the box bobbing with the pool's sloshing (at 8 spacings, on the
// CPU: -4.1 % over [0.6, 1] s, then -1.4, -0.7, -1.9 and -2.1 % over the half seconds from 1 to 3 s; a run
// that differs from it only by rounding, -2.5 % over [1, 2] s). The level gauge (between the boxes, at the
// node of the pool's first sloshing mode along x) is calibrated on the still pool: its first sample reads
// the initial surface, 0.16 m, and that offset (the phi = 0.5 convention's, a fraction of a spacing) is
// taken off. Once the pool has settled it reads 0.05 to 0.1 spacings below the surface the pressure under
// it extrapolates to, z0 = z + p / (rho0 g), as summation density compresses the surface layer; the box
// floats by that pressure (its draft below z0 came within 1.2 % over the same half seconds, and a fixed box's
// force gauge read rho0 g a^2 (z0 - its bottom) within 0.005 spacings). That is 1 to 2.5 % of a/2 at 8
// spacings, under 1 % at 25. The heavy one, let go 2 cm above the floor, sinks to it and stays.
// run_sampling, the gauge-sampling loop, serves the other moving-solid tests too.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/io/time_schedule.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/gauge.h"

namespace surge {

// Runs `sim` to `end` seconds, calling sample(values, time) at every gauge sample from `from` on.
template <typename Sample>
inline void run_sampling(Simulation& sim, double end, double from, double every, Sample&& sample) {
  TimeSchedule schedule(every, 1);
  std::vector<float> values;
  while (sim.status().time_s < end) {
    sim.step();
    const StepStatus status = sim.status();
    ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
    if (!schedule.take(status.time_s) || status.time_s < from) continue;
    sim.sample_gauges(values);
    sample(values, status.time_s);
  }
}

struct ArchimedesResult {
  double draft_ratio = 0;   // the light box's draft over a / 2
  double heavy_bottom = 0;  // the heavy box's bottom above the floor, m, on average
  double heavy_speed = 0;   // the heavy box's speed, m/s, on average
  long samples = 0;
};

inline ArchimedesResult measure_archimedes(ExecutionMode mode, double spacing, const std::string& scene_file,
                                           SolverKind solver = SolverKind::wcsph) {
  char spacing_text[32];
  std::snprintf(spacing_text, sizeof spacing_text, "%.4f", spacing);
  std::string text = R"(name = "archimedes"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.32, 0.16, 0.3]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.01
[fluid]
viscosity_alpha = 0.1
speed_of_sound = 10.0
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.32, 0.16, 0.16]
[[solid]]
name = "light"
shape = "box"
center = [0.08, 0.08, 0.17]
size = [0.08, 0.08, 0.08]
motion = "floating"
density = 500.0
[[solid]]
name = "heavy"
shape = "box"
center = [0.24, 0.08, 0.06]
size = [0.08, 0.08, 0.08]
motion = "floating"
density = 1500.0
[gauges]
every_time = 0.002
[[gauge]]
name = "light"
type = "body"
solid = "light"
[[gauge]]
name = "heavy"
type = "body"
solid = "heavy"
[[gauge]]
name = "level"
type = "level"
x = 0.16
y = 0.02
z0 = 0.05
z1 = 0.29
)";
  ;
  text.replace(text.find("spacing = 0.01"), 14, std::string("spacing = ") + spacing_text);
  Scene scene = parse_scene(text, scene_file);
  scene.solver = solver;
  auto sim = make_simulation(scene, mode, {});
  EXPECT_TRUE(sim->set_gauges(gauge_probes(scene.gauges)));
  const double a = 0.08;
  ArchimedesResult r;
  double level_offset = 0, draft_sum = 0;
  bool calibrated = false;
  constexpr double kEnd = 2.0, kSettled = 1.0;  // [s]: the run, and the start of the averaged window
  run_sampling(*sim, kEnd, 0.0, 0.002, [&](const std::vector<float>& v, double t) {
    const float* light = v.data();
    const float* heavy = v.data() + 19;
    const float level = v[38];
    if (!calibrated) {
      level_offset = level - 0.16;
      calibrated = true;
    }
    if (t < kSettled) return;
    draft_sum += (level - level_offset) - (light[2] - 0.5 * a);
    r.heavy_bottom += heavy[2] - 0.5 * a;
    r.heavy_speed += std::sqrt(heavy[7] * heavy[7] + heavy[8] * heavy[8] + heavy[9] * heavy[9]);
    ++r.samples;
  });
  if (r.samples == 0) return r;
  r.draft_ratio = draft_sum / double(r.samples) / (0.5 * a);
  r.heavy_bottom /= double(r.samples);
  r.heavy_speed /= double(r.samples);
  std::printf(
      "%s %s, spacing %.4f m (a = %.0f spacings): light box draft %+.2f %% from a/2 (level gauge offset %.4f "
      "m); "
      "heavy box bottom at z = %.4f m (%.2f spacings), speed %.4f m/s on average\n",
      solver_name(solver), mode_name(mode), spacing, a / spacing, 100 * (r.draft_ratio - 1), level_offset,
      r.heavy_bottom, r.heavy_bottom / spacing, r.heavy_speed);
  return r;
}

// A box 4 spacings a side held fixed under water in a tank 16 spacings wide, 12 deep, with a force gauge on
// it, run to rest under `solver`: the gauge's average over the last half of the run, and the water the
// lattice displaced, m g (N_without - N_with) (the box sits on the lattice's sites: its exact volume).
// Shared by the CPU test (tests/sim/moving_solids_test.cpp) and the GPU one.
struct FixedBoxForce {
  double fx = 0, fy = 0, fz = 0, displaced = 0;
};

// A tank 16 spacings wide with water 12 deep, and `solid` (TOML: a solid and its force gauge, or "") in it:
// the scene of the fixed-body buoyancy tests.
inline std::string buoyancy_tank(const std::string& solid) {
  return R"(name = "buoyancy"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.16, 0.16, 0.2]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.01
[fluid]
viscosity_alpha = 0.1
speed_of_sound = 10.0
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.16, 0.16, 0.12]
)" + solid;
}

inline FixedBoxForce measure_fixed_box_force(ExecutionMode mode, SolverKind solver,
                                             const std::string& scene_file) {
  const auto tank = buoyancy_tank;
  Scene scene = parse_scene(tank(R"(
[[solid]]
name = "box"
shape = "box"
center = [0.08, 0.08, 0.05]
size = [0.04, 0.04, 0.04]
[gauges]
every_time = 0.002
[[gauge]]
name = "box"
type = "force"
solid = "box"
)"),
                            scene_file);
  scene.solver = solver;  // as the CLI's --solver: the WCSPH keys above stay unread
  const SphSetup without = build_setup(parse_scene(tank(""), scene_file));
  const std::size_t with = build_setup(scene).fluid.size();
  auto sim = make_simulation(scene, mode, {});
  EXPECT_TRUE(sim->set_gauges(gauge_probes(scene.gauges)));
  // WCSPH's c0 = 10 m/s rings down in 0.15 s; the incompressible solvers' larger steps make a longer run
  // cheap, and their water sloshes longer (averaged over [0.8, 1.6] s: a few periods of the tank's first
  // sloshing mode, about 0.3 s).
  const double end = solver == SolverKind::wcsph ? 0.3 : 1.6;
  FixedBoxForce f;
  long samples = 0;
  run_sampling(*sim, end, 0.5 * end, 0.002, [&](const std::vector<float>& v, double) {
    f.fx += v[0];
    f.fy += v[1];
    f.fz += v[2];
    ++samples;
  });
  EXPECT_GT(samples, 50);
  if (samples == 0) return f;
  f.fx /= double(samples);
  f.fy /= double(samples);
  f.fz /= double(samples);
  f.displaced = double(without.params.gravity.z) * -1.0 * without.params.particle_mass *
                double(without.fluid.size() - with);
  std::printf(
      "%s %s: fixed box under water: F_z %.4f N, the lattice's displaced water %.4f N (%+.2f %%); "
      "F_x %.4f N, F_y %.4f N\n",
      solver_name(solver), mode_name(mode), f.fz, f.displaced, 100 * (f.fz / f.displaced - 1), f.fx, f.fy);
  return f;
}

}  // namespace surge
