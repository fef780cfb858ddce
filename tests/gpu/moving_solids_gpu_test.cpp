// Moving and floating solids on the GPU (sim/sph/solid_bodies.h): in every mode the bodies follow the CPU
// reference, and moving them adds no bus bytes per step beyond the gauge values, under WCSPH and (a
// floating box) under DFSPH and PBF; and a piston wave-maker
// makes the waves linear wave-maker theory (Biesel 1951) says it should, for kh from 0.5 to 2. Runs under
// the `gpu` label; skipped with a message elsewhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/io/time_schedule.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/gauge.h"
#include "tests/sim/archimedes_check.h"
#include "tests/sim/piston_flume.h"
#include "tests/sim/summation_order_twin.h"

namespace surge {
namespace {

const std::string kSceneFile = SURGE_SOURCE_DIR "/scenes/moving_solids_gpu_test.toml";

// A pool with a floating box dropped in and a paddle turning beside it; `moving` false makes both fixed.
std::string pool(bool moving) {
  const std::string floating = moving ? "motion = \"floating\"\ndensity = 600.0\n" : "";
  const std::string turning =
      moving ? "motion = \"rotate\"\naxis = [0, 0, 1]\nangular_speed = 360.0\nramp = 0.02\n" : "";
  return R"(name = "pool"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.32, 0.16, 0.24]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.01
[fluid]
viscosity_alpha = 0.1
speed_of_sound = 12.0
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.32, 0.16, 0.12]
[[solid]]
name = "box"
shape = "box"
center = [0.08, 0.08, 0.16]
size = [0.08, 0.08, 0.08]
)" + floating +
         R"(
[[solid]]
name = "paddle"
shape = "box"
center = [0.24, 0.08, 0.06]
size = [0.1, 0.02, 0.06]
)" + turning +
         R"(
[gauges]
every_time = 0.01
[[gauge]]
name = "box"
type = "body"
solid = "box"
[[gauge]]
name = "paddle"
type = "force"
solid = "paddle"
)";
}

constexpr int kSteps = 400, kEvery = 40;

std::vector<std::vector<float>> run(Simulation& simulation, const Scene& scene) {
  EXPECT_TRUE(simulation.set_gauges(gauge_probes(scene.gauges)));
  std::vector<std::vector<float>> series;
  for (int step = 1; step <= kSteps; ++step) {
    simulation.step();
    const StepStatus status = simulation.status();  // as `surge run` reads it every step
    EXPECT_EQ(status.instability, Instability::none) << status.diagnosis();
    if (step % kEvery != 0) continue;
    series.emplace_back();
    simulation.sample_gauges(series.back());
  }
  return series;
}

TEST(MovingSolidsGpu, EveryModeFollowsTheCpuAndMovingCostsNoBusBytes) {
  const Scene scene = parse_scene(pool(true), kSceneFile);
  const Scene still = parse_scene(pool(false), kSceneFile);
  auto cpu = make_simulation(scene, ExecutionMode::cpu, {});
  const auto reference = run(*cpu, scene);
  for (ExecutionMode mode : {ExecutionMode::gpu, ExecutionMode::hybrid, ExecutionMode::hybrid_overlap}) {
    SCOPED_TRACE(std::string(mode_name(mode)));
    auto moving = make_simulation(scene, mode, {});
    auto fixed = make_simulation(still, mode, {});
    const auto series = run(*moving, scene);
    (void)run(*fixed, still);
    ASSERT_EQ(series.size(), reference.size());
    for (std::size_t k = 0; k < series.size(); ++k) {
      const std::vector<float>& g = series[k];
      const std::vector<float>& c = reference[k];
      ASSERT_EQ(g.size(), 25u);
      std::printf(
          "%s sample %zu: box z %.5f (cpu %.5f) m, v_z %.4f (cpu %.4f) m/s, paddle m_z %.5f (cpu %.5f) N m\n",
          std::string(mode_name(mode)).c_str(), k, g[2], c[2], g[9], c[9], g[24], c[24]);
      // Float sums in another order grow apart over the steps: a hundredth of a spacing for the box's place,
      // 5 mm/s for its speed, a quaternion component to 1e-3, the paddle's moment to 5 % of its size.
      for (int a = 0; a < 3; ++a) EXPECT_NEAR(g[a], c[a], 1e-4f) << "sample " << k;
      for (int a = 3; a < 7; ++a) EXPECT_NEAR(g[a], c[a], 1e-3f) << "sample " << k;
      for (int a = 7; a < 10; ++a) EXPECT_NEAR(g[a], c[a], 5e-3f) << "sample " << k;
      EXPECT_NEAR(g[24], c[24], 0.05f * std::fabs(c[24]) + 1e-4f) << "sample " << k;
    }
    // The ledger: the same run with both solids fixed moves nothing the moving one does not, but for the
    // solids' own uploads at the start (a moving scene also sends which body each wall particle belongs to).
    // In the gpu mode the bytes are equal too. The hybrid modes' traffic is their CPU index's (positions up,
    // the index down), which hybrid-overlap moves as often as the fluid's motion uses up its skin: a stirred
    // pool moves more (measured: 864,300 against 345,720 bytes of "cell index from the CPU").
    const auto with = moving->ledger().entries();
    const auto without = fixed->ledger().entries();
    for (const auto& [key, entry] : with) {
      if (key.second == "solid bodies") continue;
      const auto it = without.find(key);
      ASSERT_NE(it, without.end()) << key.second;
      if (mode == ExecutionMode::gpu) {
        EXPECT_EQ(entry.bytes, it->second.bytes) << key.second;
      }
    }
  }
}

// The same pool's box under an incompressible solver, floating (`floating`) or fixed, with no paddle.
std::string incompressible_pool(const std::string& solver, bool floating) {
  return "name = \"pool\"\nsolver = \"" + solver + R"("
[domain]
min = [0.0, 0.0, 0.0]
max = [0.32, 0.16, 0.24]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.01
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.32, 0.16, 0.12]
[[solid]]
name = "box"
shape = "box"
center = [0.08, 0.08, 0.16]
size = [0.08, 0.08, 0.08]
)" + (floating ? "motion = \"floating\"\ndensity = 600.0\n" : "") +
         R"(
[gauges]
every_time = 0.01
[[gauge]]
name = "box"
type = "body"
solid = "box"
)";
}

// The solver reductions a step reads back on the GPU (8 bytes each, "solver reduction (sum)"): DFSPH's
// average error before each solve and after each of its iterations; PBF's average density error once after
// its fixed iterations ([pbf] density_error = 0, the default: no early stop).
long solver_sums_of_last_step(Simulation& simulation, SolverKind solver) {
  if (solver == SolverKind::pbf) return 1;
  long sums = 2;
  for (const NamedValue& figure : simulation.step_figures())
    if (figure.name == "divergence_iterations" || figure.name == "density_iterations")
      sums += long(std::get<double>(figure.value));
  return sums;
}

// A box of density 600 dropped into the pool under DFSPH and under PBF: the GPU's box follows the CPU's, and
// in the gpu mode floating adds no bus bytes. The ledger of the run with the box fixed holds everything the
// floating run's does, with the same bytes, but for the bodies' uploads at the start and the solver's
// reductions, whose count follows the iterations each step took (solver_sums_of_last_step), which differ
// between the two runs: there it must be exactly what the iterations explain, so nothing else reads back.
TEST(MovingSolidsGpu, DfsphAndPbfFloatABoxAsTheCpuDoesAndAddNoBusBytes) {
  for (const std::string solver_text : {"dfsph", "pbf"}) {
    SCOPED_TRACE(solver_text);
    const SolverKind solver = *parse_solver_kind(solver_text);
    const Scene scene = parse_scene(incompressible_pool(solver_text, true), kSceneFile);
    const Scene still = parse_scene(incompressible_pool(solver_text, false), kSceneFile);
    auto cpu = make_simulation(scene, ExecutionMode::cpu, {});
    auto gpu = make_simulation(scene, ExecutionMode::gpu, {});
    auto fixed = make_simulation(still, ExecutionMode::gpu, {});
    const auto reference = run(*cpu, scene);
    auto twin = make_reversed_simulation(scene, ExecutionMode::cpu);
    const auto twin_series = run(*twin, scene);
    // Components 0-2 of the body gauge are the box's centre, 7-9 its velocity.
    const auto twin_difference = [&](int first) {
      float largest = 0;
      for (std::size_t k = 0; k < reference.size(); ++k)
        for (int a = first; a < first + 3; ++a)
          largest =
              std::max(largest, std::abs(twin_series[k][std::size_t(a)] - reference[k][std::size_t(a)]));
      return double(largest);
    };
    // An iterative solve stops where its error first falls below the target, which float sums in another
    // order can move by an iteration: 0.15 spacings for the box's place and 2 cm/s for its speed (about 5 %
    // of its entry speed), or kSummationOrderFactor times what the CPU's box differs from its reversed twin's
    // (tests/sim/summation_order_twin.h) where that is more, up to a spacing (the box sinks 6 cm) and 10
    // cm/s. On the H200 (2026-12-03) DFSPH's twin differed by 1.76 mm and 2.8 cm/s, the GPU from the CPU by
    // 0.83 mm and 2.6 cm/s.
    const float place_bound = float(
        summation_order_bound((solver_text + " box centre [m]").c_str(), twin_difference(0), 1.5e-3, 1e-2));
    const float speed_bound = float(
        summation_order_bound((solver_text + " box velocity [m/s]").c_str(), twin_difference(7), 2e-2, 0.1));
    std::vector<std::vector<float>> series;
    long sums = 0;
    EXPECT_TRUE(gpu->set_gauges(gauge_probes(scene.gauges)));
    for (int step = 1; step <= kSteps; ++step) {
      gpu->step();
      const StepStatus status = gpu->status();
      EXPECT_EQ(status.instability, Instability::none) << status.diagnosis();
      sums += solver_sums_of_last_step(*gpu, solver);
      if (step % kEvery != 0) continue;
      series.emplace_back();
      gpu->sample_gauges(series.back());
    }
    (void)run(*fixed, still);
    ASSERT_EQ(series.size(), reference.size());
    for (std::size_t k = 0; k < series.size(); ++k) {
      const std::vector<float>& g = series[k];
      const std::vector<float>& c = reference[k];
      ASSERT_EQ(g.size(), 19u);
      std::printf("%s gpu sample %zu: box z %.5f (cpu %.5f) m, v_z %.4f (cpu %.4f) m/s\n",
                  solver_text.c_str(), k, g[2], c[2], g[9], c[9]);
      for (int a = 0; a < 3; ++a) EXPECT_NEAR(g[a], c[a], place_bound) << "sample " << k;
      for (int a = 7; a < 10; ++a) EXPECT_NEAR(g[a], c[a], speed_bound) << "sample " << k;
      // The box falls upright into a still pool: nothing should turn it, and what does is the solves'
      // noise, which the summation order changes, so the two runs' small tilts are not compared with
      // each other (on the H200 a component read -0.011 against the CPU's +0.003) but each is held
      // within 6 degrees of upright: each imaginary quaternion component below sin(3 degrees). Both runs
      // tilt by up to 3.2 degrees (a component of 0.028) by the last samples, on the CPU as on the GPU.
      for (int a = 4; a < 7; ++a) {
        EXPECT_LT(std::abs(g[a]), 0.052f) << "gpu, sample " << k << ", component " << a;
        EXPECT_LT(std::abs(c[a]), 0.052f) << "cpu, sample " << k << ", component " << a;
      }
    }
    const auto with = gpu->ledger().entries();
    const auto without = fixed->ledger().entries();
    for (const auto& [key, entry] : with) {
      if (key.second == "solid bodies") continue;
      if (key.second == "solver reduction (sum)") {
        EXPECT_EQ(long(entry.copies), sums);
        EXPECT_EQ(entry.bytes, 8 * entry.copies);
        continue;
      }
      const auto it = without.find(key);
      ASSERT_NE(it, without.end()) << key.second;
      EXPECT_EQ(entry.bytes, it->second.bytes) << key.second;
    }
  }
}

// A force gauge on a fixed box under water reads on the GPU what it reads on the CPU, under every fluid
// solver (tests/sim/archimedes_check.h; the CPU test, tests/sim/moving_solids_test.cpp, measured WCSPH -1.13
// %, DFSPH +3.57 % (its water still moving), PBF -0.28 % against the displaced water): the GPU's average
// within the CPU test's tolerances (3 %; DFSPH 7 %), and within 2 % of the displaced water from the CPU's own
// average for WCSPH and PBF, whose water comes to rest (DFSPH's residual sloshing differs between the two
// runs: 5 %).
TEST(MovingSolidsGpu, AFixedBoxForceGaugeReadsAsOnTheCpuUnderEverySolver) {
  for (SolverKind solver : {SolverKind::wcsph, SolverKind::dfsph, SolverKind::pbf}) {
    const FixedBoxForce gpu = measure_fixed_box_force(ExecutionMode::gpu, solver, kSceneFile);
    const FixedBoxForce cpu = measure_fixed_box_force(ExecutionMode::cpu, solver, kSceneFile);
    const bool settles = solver != SolverKind::dfsph;
    EXPECT_NEAR(gpu.fz / gpu.displaced, 1.0, settles ? 0.03 : 0.07) << solver_name(solver);
    EXPECT_NEAR(gpu.fz, cpu.fz, (settles ? 0.02 : 0.05) * gpu.displaced) << solver_name(solver);
    EXPECT_LT(std::fabs(gpu.fx), (settles ? 0.03 : 0.05) * gpu.displaced) << solver_name(solver);
    EXPECT_LT(std::fabs(gpu.fy), (settles ? 0.03 : 0.05) * gpu.displaced) << solver_name(solver);
  }
}

// Archimedes under PBF on the GPU at the CPU test's 8 spacings, within its 3 % (CPU: -0.42 %, once MM13's
// artificial pressure was off by default; +10.2 % with it).
TEST(MovingSolidsGpu, ArchimedesUnderPbfAtEightSpacings) {
  const ArchimedesResult r = measure_archimedes(ExecutionMode::gpu, 0.01, kSceneFile, SolverKind::pbf);
  ASSERT_GT(r.samples, 100);
  EXPECT_NEAR(r.draft_ratio, 1.0, 0.03);
  EXPECT_LT(std::fabs(r.heavy_bottom), 0.5 * 0.01);
  EXPECT_LT(r.heavy_speed, 0.1);
}

// Archimedes (tests/sim/archimedes_check.h) on the GPU, at the CPU test's 8 spacings a side, at 16 and at
// 25 (a 0.0032 m lattice, the issue's 2 %). Before a floating body had a lattice of its own, the fluid's
// lattice at 25 spacings put the box's lowest particles 0.875 spacings above its bottom face and its highest
// 0.125 below its top: it floated 0.375 spacings high (-3 %; -7.1 % measured over [0.6, 1] s), and the
// heavy box's lowest layer sat 0.25 spacings above its bottom face, so contact, which starts one spacing
// from the floor's particles, held it that much higher (0.61 spacings measured). At 8 and 16 spacings the
// box was on the lattice already, and the draft averaged over [0.6, 1] s (-4.5 % and -2.25 % then) was that
// of a box still bobbing. Expected with both fixed (the CPU measured the 8-spacing case: see
// tests/sim/moving_solids_test.cpp): the draft 1 to 2 % short at 8 spacings, within 2 % at 16 and 25, the
// shortfall mostly the level gauge's 0.09 spacings below the hydrostatic surface; the heavy box on the
// floor within half a spacing (a particle lattice resting on another: between nested, -0.3 spacings, and
// on a film of water, +0.3).
void expect_archimedes(double spacing, double tolerance) {
  const ArchimedesResult r = measure_archimedes(ExecutionMode::gpu, spacing, kSceneFile);
  ASSERT_GT(r.samples, 100);
  EXPECT_NEAR(r.draft_ratio, 1.0, tolerance) << "spacing " << spacing;
  EXPECT_LT(std::fabs(r.heavy_bottom), 0.5 * spacing) << "spacing " << spacing;
  EXPECT_LT(r.heavy_speed, 0.1) << "spacing " << spacing;
}

TEST(MovingSolidsGpu, ArchimedesAtEightAndSixteenSpacings) {
  expect_archimedes(0.01, 0.03);
  expect_archimedes(0.005, 0.02);
}

// The issue's target: within 2 % at 25 spacings a side (a 0.0032 m lattice).
TEST(MovingSolidsGpu, ArchimedesWithinTwoPercentAtTwentyFiveSpacings) {
  expect_archimedes(0.0032, 0.02);
}

// A quasi-2-D flume four particles wide, water d = 0.3 m deep, a piston at x = 0 with a stroke chosen for a
// wave 3 cm high (steepness under 3 %), ramped in over one period. Level gauges at x = 0.6 m = 2 d (beyond
// the piston's evanescent modes, which decay within about d), 1.2 m and 1.8 m. The 0.6 m gauge is fitted over
// the third and fourth periods after the ramped wave train's front has passed it (travelling at the group
// velocity), when the train's dispersive front has gone by, and before the far wall's reflection returns: the
// wave height within 10 % of Biesel's. The flume is as long as that takes (4 to 5.2 m). Each gauge is also
// fitted over every single period from the front's arrival to the reflection's and printed: a height that
// grows with time at one gauge is the front still passing; one that falls from gauge to gauge is damping;
// one low at every gauge from the start is the piston making too little wave.
//
// What it takes (docs/scenes.md, "A piston wave-maker"): free-slip side walls ([domain] slip_walls), and many
// particles per wave height (six here: dp = 0.005 m, 60 deep). With no-slip side walls Monaghan's viscous
// term against the wall particles brakes the water beside them, which in a flume a few particles wide is most
// of it: on the H200, 2026-12-01, a flume 4 particles wide at dp = 0.01 m with no-slip walls read H/S 16 %,
// 20 % and 31 % below Biesel's at kh = 0.5, 1 and 2. On the CPU (kh = 2, dp = 0.02 m, 4 particles wide, H
// = 1.5 dp) free-slip side walls took the gauge at 0.6 m from -23.6 % to -17.5 %.
//
// The kernel decides it. With the cubic spline at 2 spacings (Surge's default) the target was not met: on the
// H200 (2026-12-03, fitted over the first two periods) H/S came 13.3 %, 20.7 % and 27.2 % below Biesel's at
// kh = 0.5, 1 and 2, and three gauges showed the piston makes Biesel's wave and the flume damps it (at kh =
// 2, 0.72 / 0.54 / 0.36 of Biesel's at 0.6 / 1.2 / 1.8 m). Neither the artificial viscosity (alpha = 0: the
// decay fell by a third), the side walls (ten particles across: by 60 %) nor the floor (free-slip: 31 %
// low, worse) accounts for it. Wendland C2 at 3 spacings, with its 113 neighbours to the cubic's 33, reads
// -4.4 % at 0.6 m and 0.95 / 0.82 / 0.70 of Biesel's at the three gauges (same day): the cubic spline's
// short support, not the walls or the viscosity, was most of the damping (0.25 /m is left). So the checked
// flume is Wendland C2 at 3 spacings, as DualSPHysics' wave cases use (h = 2 dp there); the
// `DISABLED_PistonDamping/` variants keep the rows of docs/scenes.md's table. All of them have free-slip side
// walls but the two `NoSlipSideWalls` ones, which measure what the walls' friction costs at this spacing (on
// the CPU at dp = 0.02 m it was 9 % of the decay along the flume: tests/sim/piston_flume_test.cpp).
class PistonWaves : public ::testing::TestWithParam<Flume> {};

TEST_P(PistonWaves, MakeBieselsWaves) {
  // Four particles across: a flume two particles wide does not stand still (docs/scenes.md).
  const Flume flume = GetParam();
  const FlumeWave wave = flume_wave(flume);
  const double gauge_x[] = {0.6, 1.2, 1.8};  // the first is checked
  const double kh = flume.kh, omega = wave.omega, period = wave.period, group = wave.group;
  ASSERT_NEAR(wave_number(omega, wave.depth), wave.k, 1e-6);
  const double expected_ratio = wave.biesel, stroke = wave.stroke;
  const auto front = [&](double x) { return wave.front(x); };
  const double from = front(gauge_x[0]) + 3 * period, to = from + 2 * period;
  // Long enough that the far wall's reflection reaches the checked gauge a quarter period after the window.
  const double length = std::max(4.0, 0.5 * ((to + 0.25 * period) * group + gauge_x[0]));
  const auto reflection = [&](double x) { return (2 * length - x) / group; };
  ASSERT_GT(reflection(gauge_x[0]), to);
  const std::string scene_text =
      piston_flume_scene(flume, length, std::vector<double>(std::begin(gauge_x), std::end(gauge_x)));
  const Scene scene = parse_scene(scene_text, kSceneFile);
  const auto started = std::chrono::steady_clock::now();
  auto sim = make_simulation(scene, ExecutionMode::gpu, {});
  ASSERT_TRUE(sim->set_gauges(gauge_probes(scene.gauges)));
  TimeSchedule schedule(0.005, 1);
  std::vector<double> times;
  std::vector<std::vector<double>> levels(std::size(gauge_x));
  std::vector<float> values;
  const double end = std::max(to, std::min(reflection(gauge_x[2]), front(gauge_x[2]) + 6 * period));
  while (sim->status().time_s < end) {
    sim->step();
    const StepStatus status = sim->status();
    ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
    if (!schedule.take(status.time_s)) continue;
    sim->sample_gauges(values);
    times.push_back(status.time_s);
    for (std::size_t g = 0; g < levels.size(); ++g) levels[g].push_back(values[g]);
  }
  // Gauge g's wave height from its samples in [t0, t1).
  const auto height_over = [&](std::size_t g, double t0, double t1) {
    std::vector<double> t, eta;
    for (std::size_t i = 0; i < times.size(); ++i)
      if (times[i] >= t0 && times[i] < t1) {
        t.push_back(times[i]);
        eta.push_back(levels[g][i]);
      }
    return fitted_height(t, eta, omega);
  };
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf(
      "piston kh = %.2f, %d particles wide, alpha %.3f, delta %.2f, %s at %d spacings, %s side walls, %s "
      "floor: T = %.3f s, stroke %.4f m, group velocity %.3f m/s, flume %.2f m; Biesel's H/S %.3f; %zu "
      "particles, %ld steps, %.0f s\n",
      kh, flume.width_particles, flume.alpha, flume.delta, flume.kernel, flume.support,
      flume.slip_side_walls ? "free-slip" : "no-slip", flume.slip_floor ? "free-slip" : "no-slip", period,
      stroke, group, length, expected_ratio, sim->fluid_count(), sim->status().step, seconds);
  for (std::size_t g = 0; g < levels.size(); ++g) {
    std::printf("  gauge x = %.1f m, H/S against Biesel's, period by period from the front:", gauge_x[g]);
    for (double t0 = front(gauge_x[g]); t0 + period <= std::min(end, reflection(gauge_x[g])); t0 += period)
      std::printf(" %+.1f %%", 100 * (height_over(g, t0, t0 + period) / stroke / expected_ratio - 1));
    std::printf("\n");
  }
  const double height = height_over(0, from, to);
  std::printf("  checked: x = %.1f m over [%.2f, %.2f] s: H/S %.3f (%+.1f %%)\n", gauge_x[0], from, to,
              height / stroke, 100 * (height / stroke / expected_ratio - 1));
  EXPECT_NEAR(height / stroke / expected_ratio, 1.0, 0.10) << "kh = " << kh;
}

std::string flume_name(const ::testing::TestParamInfo<Flume>& info) {
  return "kh" + std::to_string(int(info.param.kh * 10)) + info.param.name;
}
INSTANTIATE_TEST_SUITE_P(WaveFlume, PistonWaves, ::testing::Values(Flume{0.5}, Flume{1.0}, Flume{2.0}),
                         flume_name);
// Diagnostics, not checks (the cubic spline's rows fail the 10 %): run them with
// --gtest_also_run_disabled_tests --gtest_filter='DISABLED_PistonDamping/*'.
INSTANTIATE_TEST_SUITE_P(
    DISABLED_PistonDamping, PistonWaves,
    ::testing::Values(Flume{2.0, 4, 0.01, 0.1, "CubicSpline", "cubic_spline", 2},
                      Flume{2.0, 4, 0.01, 0.0, "CubicNoDensityDiffusion", "cubic_spline", 2},
                      Flume{2.0, 4, 0.0, 0.1, "CubicNoArtificialViscosity", "cubic_spline", 2},
                      Flume{2.0, 10, 0.01, 0.1, "CubicTenWide", "cubic_spline", 2},
                      Flume{2.0, 4, 0.01, 0.1, "CubicSlipFloor", "cubic_spline", 2, true},
                      Flume{2.0, 4, 0.0, 0.1, "NoArtificialViscosity"},
                      Flume{2.0, 4, 0.01, 0.1, "WendlandFour", "wendland_c2", 4},
                      Flume{2.0, 4, 0.01, 0.1, "CubicNoSlipSideWalls", "cubic_spline", 2, false, false},
                      Flume{2.0, 4, 0.01, 0.1, "NoSlipSideWalls", "wendland_c2", 3, false, false}),
    flume_name);

}  // namespace
}  // namespace surge
