// Gauges (sim/sph/gauges.h, sim/io/gauge_recorder.h): a floor pressure gauge reads rho0 g d in a tank at
// rest, a level gauge its depth, a velocity gauge zero there and the block's velocity on a moving block;
// samples land at the first step after each multiple of every_time; sampling leaves the physics alone; and
// each mistake in a [[gauge]] block is reported at its line and key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/backend/cpu_executor.h"
#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/io/gauge_recorder.h"
#include "sim/io/time_schedule.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/wcsph_solver.h"

namespace surge {
namespace {

GaugeDefinition point_gauge(std::string name, GaugeKind kind, Vec3f position) {
  GaugeDefinition gauge;
  gauge.name = std::move(name);
  gauge.kind = kind;
  gauge.position = position;
  return gauge;
}

GaugeDefinition level_gauge(std::string name, float x, float y, float z0, float z1) {
  GaugeDefinition gauge = point_gauge(std::move(name), GaugeKind::level, {x, y, z0});
  gauge.z_top = z1;
  return gauge;
}

// The tank of hydrostatic_test.cpp, half as deep (8 x 8 x 12 particles of water 0.12 m deep), to settle in
// a few seconds of CPU time.
Scene hydrostatic_tank(float spacing, float depth) {
  Scene scene;
  scene.name = "hydrostatic";
  scene.domain_min = {0.0f, 0.0f, 0.0f};
  scene.domain_max = {0.08f, 0.08f, depth + 0.1f};
  scene.walls = {true, true, true, true, true, false};
  scene.spacing = spacing;
  scene.viscosity_alpha = 0.1f;
  FluidBlock water;
  water.min = {0.0f, 0.0f, 0.0f};
  water.max = {0.08f, 0.08f, depth};
  scene.blocks = {water};
  return scene;
}

// A cube of water flying at 0.5 m/s in x, with no gravity and no walls.
Scene moving_block() {
  Scene scene;
  scene.name = "moving";
  scene.domain_min = {0.0f, 0.0f, 0.0f};
  scene.domain_max = {1.0f, 0.6f, 0.6f};
  scene.walls = {};
  scene.spacing = 0.02f;
  scene.gravity = {0.0f, 0.0f, 0.0f};
  FluidBlock block;
  block.min = {0.2f, 0.2f, 0.2f};
  block.max = {0.4f, 0.4f, 0.4f};
  block.velocity = {0.5f, 0.0f, 0.0f};
  scene.blocks = {block};
  return scene;
}

TEST(Gauges, HydrostaticTankReadsRhoGDTheDepthAndRest) {
  const float spacing = 0.01f, depth = 0.12f;
  const SphSetup setup = build_setup(hydrostatic_tank(spacing, depth));
  auto sim = make_cpu_simulation(setup);
  const std::vector<GaugeDefinition> gauges = {
      point_gauge("floor", GaugeKind::pressure, {0.04f, 0.04f, 0.0f}),
      point_gauge("corner", GaugeKind::pressure, {0.0f, 0.0f, 0.0f}),
      level_gauge("level", 0.04f, 0.04f, 0.0f, 0.22f),
      point_gauge("u", GaugeKind::velocity, {0.04f, 0.04f, 0.06f})};
  ASSERT_TRUE(sim->set_gauges(gauge_probes(gauges)));
  const double rho0 = setup.params.rest_density, g = 9.81, every = 0.001;
  // As in hydrostatic_test.cpp: the release rings acoustically (period 4 H / c0, about 0.03 s here); after
  // 0.3 s the samples are averaged over 0.2 s, about seven periods: the mean is the hydrostatic one, not a
  // phase of the ringing (whose amplitude at the floor is several percent).
  const double settle_s = 0.3, end_s = 0.5;
  TimeSchedule schedule(every, 1);
  std::vector<float> values;
  double floor_sum = 0, corner_sum = 0, level_sum = 0, speed_sum = 0, largest_speed = 0;
  long samples = 0, quiet = 0;
  double previous_time = 0;
  while (sim->status().time_s < end_s) {
    sim->step();
    const StepStatus status = sim->status();
    ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
    if (!schedule.take(status.time_s)) continue;
    ++samples;
    // The first step ending at or after k * every, and no later than one step after it.
    EXPECT_GE(status.time_s, double(samples) * every - 1e-12);
    EXPECT_LT(status.time_s - double(status.dt_s), double(samples) * every);
    EXPECT_GT(status.time_s, previous_time);
    previous_time = status.time_s;
    sim->sample_gauges(values);
    ASSERT_EQ(values.size(), 6u);
    if (status.time_s < settle_s) continue;
    ++quiet;
    floor_sum += values[0];
    corner_sum += values[1];
    level_sum += values[2];
    const double speed = std::sqrt(double(values[3]) * values[3] + double(values[4]) * values[4] +
                                   double(values[5]) * values[5]);
    speed_sum += speed;
    largest_speed = std::max(largest_speed, speed);
  }
  EXPECT_EQ(samples, long(std::floor(end_s / every + 1e-9)));
  ASSERT_GT(quiet, 150);
  const double expected = rho0 * g * depth;
  const double floor = floor_sum / double(quiet), corner = corner_sum / double(quiet);
  const double level = level_sum / double(quiet), speed = speed_sum / double(quiet);
  std::printf(
      "floor gauge %.1f Pa, corner gauge %.1f Pa, rho0 g d %.1f Pa (%+.2f %%, %+.2f %%); level %.4f m "
      "(depth %.4f m); mean |u| %.4f m/s, max %.4f m/s over %ld samples\n",
      floor, corner, expected, 100 * (floor / expected - 1), 100 * (corner / expected - 1), level,
      double(depth), speed, largest_speed, quiet);
  EXPECT_NEAR(floor / expected, 1.0, 0.03);
  // The corner's support is seven-eighths wall: Shepard's correction is what leaves it a pressure at all
  // (uncorrected it would read about an eighth of it). The particles in a corner, where three walls' sums
  // meet, carry the largest pressure error of the tank, which the gauge reports as it is.
  EXPECT_NEAR(corner / expected, 1.0, 0.15);
  EXPECT_NEAR(level, depth, spacing);
  // At rest but for the release's ringing, whose speed scale is g H / c0 (0.08 m/s here).
  EXPECT_LT(speed, 0.5 * g * depth / setup.params.speed_of_sound);
}

TEST(Gauges, VelocityGaugeReadsAMovingBlocksVelocity) {
  const SphSetup setup = build_setup(moving_block());
  auto sim = make_cpu_simulation(setup);
  ASSERT_TRUE(sim->set_gauges(gauge_probes({point_gauge("u", GaugeKind::velocity, {0.3f, 0.3f, 0.3f}),
                                            point_gauge("dry", GaugeKind::velocity, {0.9f, 0.3f, 0.3f})})));
  for (int step = 0; step < 20; ++step) sim->step();
  std::vector<float> values;
  sim->sample_gauges(values);
  ASSERT_EQ(values.size(), 6u);
  std::printf("u = (%.6f, %.6f, %.6f) m/s at t = %.4f s\n", values[0], values[1], values[2],
              sim->status().time_s);
  EXPECT_NEAR(values[0], 0.5f, 1e-3f);
  EXPECT_NEAR(values[1], 0.0f, 1e-3f);
  EXPECT_NEAR(values[2], 0.0f, 1e-3f);
  for (int k = 3; k < 6; ++k) EXPECT_EQ(values[std::size_t(k)], 0.0f) << "a dry gauge reads 0";
}

TEST(Gauges, SamplingLeavesThePhysicsBitIdentical) {
  const SphSetup setup = build_setup(moving_block());
  auto plain = make_cpu_simulation(setup);
  auto gauged = make_cpu_simulation(setup);
  ASSERT_TRUE(gauged->set_gauges(gauge_probes({point_gauge("p", GaugeKind::pressure, {0.3f, 0.3f, 0.3f}),
                                               level_gauge("h", 0.3f, 0.3f, 0.0f, 0.6f)})));
  std::vector<float> values;
  for (int step = 0; step < 15; ++step) {
    plain->step();
    gauged->step();
    gauged->sample_gauges(values);
  }
  ParticleFrame a, b;
  plain->download(a);
  gauged->download(b);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.position[i].x, b.position[i].x);
    ASSERT_EQ(a.position[i].y, b.position[i].y);
    ASSERT_EQ(a.position[i].z, b.position[i].z);
  }
}

// The GPU takes the gauges' sums one thread a sum and then makes each gauge's values (gauges.h); the CPU
// scans a level gauge in one thread and stops at the water. Both ways on the CPU, on SPHERIC Test 2's tank
// with its twelve gauges (dry and wet level lines, pressures on the box) and a pressure, a velocity and a
// submerged level gauge inside the column, after 150 steps: every value equal, bit for bit.
TEST(Gauges, OneThreadASumReadsWhatOneThreadAGaugeReads) {
  Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/spheric2_dam_break.toml");
  scene.gauges.push_back(point_gauge("p_column", GaugeKind::pressure, {2.6f, 0.5f, 0.05f}));
  scene.gauges.push_back(point_gauge("u_column", GaugeKind::velocity, {2.1f, 0.5f, 0.3f}));
  scene.gauges.push_back(level_gauge("submerged", 2.6f, 0.5f, 0.0f, 0.3f));
  const SphSetup setup = build_setup(scene, 30000);
  TransferLedger ledger;
  CpuExecutor exec(ledger);
  WcsphSolver<CpuExecutor> solver(exec, setup);
  solver.set_gauges(gauge_probes(scene.gauges));
  for (int s = 0; s < 150; ++s) solver.step();
  using Threads = WcsphSolver<CpuExecutor>::GaugeThreads;
  std::vector<float> by_gauge, by_sum;
  solver.sample_gauges(by_gauge, Threads::one_a_gauge);
  solver.sample_gauges(by_sum, Threads::one_a_sum);
  ASSERT_EQ(by_gauge.size(), by_sum.size());
  ASSERT_EQ(by_gauge.size(), scene.gauges.size() + 2);  // the velocity gauge has three values
  int wet_lines = 0, dry_lines = 0, pressures = 0;
  for (std::size_t g = 0, v = 0; g < scene.gauges.size(); ++g) {
    const GaugeDefinition& gauge = scene.gauges[g];
    const std::size_t values = gauge.kind == GaugeKind::velocity ? 3 : 1;
    for (std::size_t k = 0; k < values; ++k, ++v) {
      std::printf("%-10s %.9g  %.9g\n", gauge.name.c_str(), by_gauge[v], by_sum[v]);
      EXPECT_EQ(by_gauge[v], by_sum[v]) << gauge.name;
    }
    if (gauge.kind == GaugeKind::level) (by_gauge[v - 1] > gauge.position.z ? wet_lines : dry_lines) += 1;
    if (gauge.kind == GaugeKind::pressure && by_gauge[v - 1] > 100.0f) ++pressures;
  }
  // What was compared: lines with water and without, and a pressure with water around it.
  EXPECT_GE(wet_lines, 2);  // H4 and the submerged line
  EXPECT_GE(dry_lines, 2);
  EXPECT_GE(pressures, 1);
  EXPECT_EQ(by_gauge[by_gauge.size() - 1], 0.3f);  // the submerged line reads its top
}

TEST(Gauges, PbfTakesNoPressureGauge) {
  Scene scene = moving_block();
  scene.solver = SolverKind::pbf;
  auto sim = make_simulation(scene, ExecutionMode::cpu, {});
  EXPECT_THROW(sim->set_gauges(gauge_probes({point_gauge("p", GaugeKind::pressure, {0.3f, 0.3f, 0.3f})})),
               std::invalid_argument);
  EXPECT_TRUE(sim->set_gauges(gauge_probes({point_gauge("u", GaugeKind::velocity, {0.3f, 0.3f, 0.3f})})));
}

TEST(Gauges, RecorderWritesAHeaderAndOneRowPerSample) {
  const SphSetup setup = build_setup(moving_block());
  auto sim = make_cpu_simulation(setup);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("surge-gauges-" + std::to_string(::getpid()));
  const std::filesystem::path csv = dir / "sub" / "g.csv";
  GaugeOutput output;
  output.every_time = 0.002f;
  output.filter_time = 0.004f;
  {
    GaugeRecorder recorder(*sim,
                           {point_gauge("p", GaugeKind::pressure, {0.3f, 0.3f, 0.3f}),
                            point_gauge("v", GaugeKind::velocity, {0.3f, 0.3f, 0.3f})},
                           output, csv);
    while (sim->status().time_s < 0.02) {
      sim->step();
      recorder.sample_if_due(sim->status());
    }
    EXPECT_TRUE(std::filesystem::exists(dir / "sub" / "g.csv.tmp"));
    EXPECT_FALSE(std::filesystem::exists(csv));
    recorder.finish();
    EXPECT_EQ(recorder.rows_written(), 10);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "sub" / "g.csv.tmp"));
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time_s,p,p_filtered,v_x,v_x_filtered,v_y,v_y_filtered,v_z,v_z_filtered");
  int rows = 0;
  std::string first;
  while (std::getline(in, line)) {
    if (rows == 0) first = line;
    ++rows;
  }
  EXPECT_EQ(rows, 10);
  // The filter starts at the first sample: its filtered columns equal the raw ones.
  std::vector<std::string> cells;
  std::istringstream fields(first);
  for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
  ASSERT_EQ(cells.size(), 9u);
  EXPECT_EQ(cells[1], cells[2]);
  EXPECT_EQ(cells[3], cells[4]);
  std::filesystem::remove_all(dir);
}

TEST(Gauges, FirstOrderFilterHasItsTimeConstant) {
  FirstOrderFilter filter(0.01);
  EXPECT_EQ(filter.update(0.0, 0.0), 0.0);
  double y = 0;
  for (int k = 1; k <= 10; ++k) y = filter.update(1.0, 0.001 * k);  // a unit step, sampled every 1 ms
  EXPECT_NEAR(y, 1.0 - std::exp(-1.0), 1e-12);                      // after one time constant
}

TEST(TimeScheduleTest, TakesTheFirstStepAtOrAfterEachMultiple) {
  TimeSchedule schedule(0.1, 1);
  EXPECT_FALSE(schedule.take(0.05));
  EXPECT_TRUE(schedule.take(0.1 + 0.2 - 0.2));  // 0.1 up to rounding counts
  EXPECT_FALSE(schedule.take(0.15));
  EXPECT_TRUE(schedule.take(0.23));
  EXPECT_NEAR(schedule.next_time_s(), 0.3, 1e-12);
  EXPECT_TRUE(schedule.take(0.55));  // a long step passes 0.3, 0.4 and 0.5: one event, the next at 0.6
  EXPECT_NEAR(schedule.next_time_s(), 0.6, 1e-12);
  EXPECT_TRUE(schedule.take(0.1 * 3 * 2));  // 0.6000000000000001
  EXPECT_EQ(as_written(0.001f), 0.001);     // the float 0.0010000000475 as the scene wrote it
  TimeSchedule off;
  EXPECT_FALSE(off.take(1.0));
}

// ---- [[gauge]] and [gauges] in scene files

// A valid scene of exactly 9 lines (the first lines of scene_loader_test.cpp's): tables follow at line 10.
const std::string kMinimal = R"([domain]
min = [0, 0, 0]
max = [1, 1, 1]
[resolution]
spacing = 0.1
[[fluid.block]]
shape = "box"
min = [0, 0, 0]
max = [0.5, 0.5, 0.5]
)";
const std::string kEvery = "[gauges]\nevery_time = 0.001\n";  // lines 10, 11

testing::AssertionResult fails_with(const std::string& text, int line, const std::string& key,
                                    const std::string& phrase) {
  try {
    parse_scene(text, "t.toml");
  } catch (const SceneError& error) {
    const std::string what = error.what();
    const std::string prefix = "t.toml:" + std::to_string(line) + ": key '" + key + "': ";
    if (error.line() == line && error.key() == key && what.starts_with(prefix) &&
        what.find(phrase, prefix.size()) != std::string::npos) {
      return testing::AssertionSuccess();
    }
    return testing::AssertionFailure()
           << "expected \"" << prefix << "...(" << phrase << ")...\", got \"" << what << "\"";
  }
  return testing::AssertionFailure() << "no SceneError thrown";
}

TEST(GaugeScene, ReadsEveryKey) {
  const Scene scene = parse_scene(kMinimal + R"([gauges]
every_time = 0.002
filter_time = 0.01
csv = "wall.csv"
[[gauge]]
name = "p1"
type = "pressure"
position = [1.0, 0.25, 0.1]
[[gauge]]
name = "h"
type = "level"
x = 0.25
y = 0.25
z0 = 0
z1 = 1
[[gauge]]
name = "u"
type = "velocity"
position = [0.25, 0.25, 0.25]
[output]
every_time = 0.01
)",
                                  "t.toml");
  EXPECT_FLOAT_EQ(scene.gauge_output.every_time, 0.002f);
  EXPECT_FLOAT_EQ(scene.gauge_output.filter_time, 0.01f);
  EXPECT_EQ(scene.gauge_output.csv, "wall.csv");
  ASSERT_EQ(scene.gauges.size(), 3u);
  EXPECT_EQ(scene.gauges[0].name, "p1");
  EXPECT_EQ(scene.gauges[0].kind, GaugeKind::pressure);
  EXPECT_EQ(scene.gauges[0].line, 14);
  EXPECT_EQ(scene.gauges[1].kind, GaugeKind::level);
  EXPECT_FLOAT_EQ(scene.gauges[1].z_top, 1.0f);
  EXPECT_EQ(scene.gauges[2].kind, GaugeKind::velocity);
  EXPECT_FLOAT_EQ(scene.every_time, 0.01f);
  EXPECT_EQ(scene.every, 0);
  EXPECT_EQ(gauge_value_total(gauge_probes(scene.gauges)), 5u);
}

TEST(GaugeScene, EachMistakeNamesItsLineAndKey) {
  const std::string gauge = "[[gauge]]\nname = \"g\"\n";  // lines 12, 13; the type goes on line 14
  EXPECT_TRUE(fails_with(kMinimal + kEvery + gauge + "type = \"flux\"\nposition = [0, 0, 0]\n", 14,
                         "gauge[0].type", "expected one of"));
  EXPECT_TRUE(fails_with(kMinimal + kEvery + gauge + "type = \"pressure\"\nposition = [0.5, 0.5, 1.5]\n", 15,
                         "gauge[0].position", "outside the domain: its z = 1.5 m"));
  EXPECT_TRUE(fails_with(kMinimal + kEvery + gauge + "type = \"pressure\"\n", 12, "gauge[0].position",
                         "required key is missing"));
  EXPECT_TRUE(fails_with(kMinimal + kEvery + "[[gauge]]\ntype = \"pressure\"\nposition = [0, 0, 0]\n", 12,
                         "gauge[0].name", "required key is missing"));
  EXPECT_TRUE(
      fails_with(kMinimal + kEvery + gauge + "type = \"level\"\nx = 0.5\ny = 0.5\nz0 = 0.5\nz1 = 0.5\n", 18,
                 "gauge[0].z1", "expected z1 above z0 = 0.5"));
  EXPECT_TRUE(fails_with(kMinimal + kEvery + gauge + "type = \"level\"\nx = 0.5\ny = 0.5\nz0 = 0.1\n", 12,
                         "gauge[0].z1", "required key is missing"));
  EXPECT_TRUE(fails_with(kMinimal + kEvery + gauge + "type = \"level\"\nposition = [0, 0, 0]\n", 15,
                         "gauge[0].position", "does not apply to a \"level\" gauge"));
  EXPECT_TRUE(fails_with(kMinimal + kEvery + gauge + "type = \"velocity\"\nposition = [0, 0, 0]\n" + gauge +
                             "type = \"pressure\"\nposition = [0, 0, 0]\n",
                         17, "gauge[1].name", "duplicate gauge name \"g\" (the first is at line 12)"));
  EXPECT_TRUE(
      fails_with(kMinimal + kEvery + "[[gauge]]\nname = \"a,b\"\n", 13, "gauge[0].name", "CSV column"));
  EXPECT_TRUE(fails_with(kMinimal + gauge + "type = \"pressure\"\nposition = [0, 0, 0]\n", 10,
                         "gauges.every_time", "required key is missing"));
  EXPECT_TRUE(fails_with(kMinimal + "[gauges]\nevery_time = 0\n" +
                             "[[gauge]]\nname = \"g\"\ntype = "
                             "\"pressure\"\nposition = [0, 0, 0]\n",
                         11, "gauges.every_time", "> 0"));
  EXPECT_TRUE(fails_with(kMinimal + kEvery, 10, "gauges", "nothing to sample"));
  EXPECT_TRUE(fails_with(
      "solver = \"pbf\"\n" + kMinimal + kEvery + gauge + "type = \"pressure\"\nposition = [0, 0, 0]\n", 15,
      "gauge[0].type", "physical pressure"));
  EXPECT_TRUE(fails_with(kMinimal + "[output]\nevery = 10\nevery_time = 0.01\n", 12, "output.every_time",
                         "exactly one of"));
}

TEST(GaugeScene, PbfKeepsItsLevelAndVelocityGauges) {
  const Scene scene = parse_scene("solver = \"pbf\"\n" + kMinimal + kEvery +
                                      "[[gauge]]\nname = \"h\"\ntype = \"level\"\nx = 0.5\ny = 0.5\nz0 = "
                                      "0\nz1 = 1\n",
                                  "t.toml");
  EXPECT_EQ(scene.gauges.size(), 1u);
}

}  // namespace
}  // namespace surge
