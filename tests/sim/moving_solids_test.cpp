// Moving and floating solids (sim/sph/body_motion.h, sim/sph/solid_bodies.h, read_solids.cpp): the
// prescribed motions' closed forms agree with their own velocities; the scene keys read and each mistake
// names its line and key; a fixed sphere in a tank at rest feels the buoyancy rho g V (the force gauge), and
// so does a fixed box under each fluid solver; a
// floating box of half the water's density settles at half its height under water and one of 1.5 times
// sinks to the floor (Archimedes); a turning paddle gives the water angular momentum of its own sign.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/io/time_schedule.h"
#include "sim/scene/scene.h"
#include "sim/scene/toml_reader.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/body_motion.h"
#include "sim/sph/gauge.h"
#include "sim/sph/sph_setup.h"
#include "tests/sim/archimedes_check.h"

namespace surge {
namespace {

const std::string kSceneFile = SURGE_SOURCE_DIR "/scenes/moving_solid_test.toml";
constexpr double kPi = 3.14159265358979323846;

// The velocities prescribed_state gives are the time derivatives of the poses it gives: a central
// difference of the reference point and of a point on the body agrees with them.
void expect_velocities_match_poses(const BodyMotion& m, const MotionTableRow* table, double t) {
  const double h = 1e-3;
  const BodyState before = prescribed_state(m, table, t - h), now = prescribed_state(m, table, t),
                  after = prescribed_state(m, table, t + h);
  const Vec3f offset{0.1f, -0.05f, 0.02f};
  const Vec3f rate = (1.0f / float(2 * h)) * (body_point(after, offset) - body_point(before, offset));
  const Vec3f point_velocity = body_point_velocity(now, body_point(now, offset));
  for (int a = 0; a < 3; ++a)
    EXPECT_NEAR(component(rate, a), component(point_velocity, a), 2e-3)
        << kMotionNames[int(m.kind)] << " at t = " << t << ", axis " << a;
}

TEST(MovingSolids, PrescribedVelocitiesAreThePosesRates) {
  BodyMotion m;
  m.rest_center = {0.5f, 0.2f, 0.1f};
  m.pivot = {0.4f, 0.2f, 0.0f};
  m.axis = {0.0f, 1.0f, 0.0f};
  m.ramp = 0.5f;
  for (double t : {0.2, 0.7, 1.3}) {
    m.kind = MotionKind::linear;
    m.velocity = {0.3f, 0.0f, -0.1f};
    expect_velocities_match_poses(m, nullptr, t);
    m.kind = MotionKind::oscillate;
    m.amplitude = {0.05f, 0.0f, 0.0f};
    m.frequency = 0.8f;
    m.phase = 0.3f;
    expect_velocities_match_poses(m, nullptr, t);
    m.kind = MotionKind::hinge;
    m.angle = 0.2f;
    expect_velocities_match_poses(m, nullptr, t);
    m.kind = MotionKind::rotate;
    m.angular_speed = 2.0f;
    expect_velocities_match_poses(m, nullptr, t);
  }
  // The ramp: at rest at t = 0, the full velocity after it; linear's position is the ramped time.
  m.kind = MotionKind::linear;
  EXPECT_NEAR(prescribed_state(m, nullptr, 0.0).velocity.x, 0.0f, 1e-7f);
  EXPECT_NEAR(prescribed_state(m, nullptr, 2.0).velocity.x, 0.3f, 1e-6f);
  EXPECT_NEAR(prescribed_state(m, nullptr, 2.0).center.x, 0.5f + 0.3f * (2.0f - 0.25f), 1e-5f);
  // A table: linear between its rows, held before the first and after the last.
  const std::vector<MotionTableRow> rows = {
      {0.0f, {0, 0, 0}, 0.0f}, {1.0f, {0.1f, 0, 0}, 0.5f}, {2.0f, {0.1f, 0.2f, 0}, 0.5f}};
  m.kind = MotionKind::table;
  m.table_first = 0;
  m.table_rows = 3;
  m.pivot = m.rest_center;
  const BodyState mid = prescribed_state(m, rows.data(), 0.5);
  EXPECT_NEAR(mid.center.x, 0.55f, 1e-6f);
  EXPECT_NEAR(mid.angular_velocity.y, 0.5f, 1e-6f);
  EXPECT_NEAR(mid.velocity.x, 0.1f, 1e-5f);
  EXPECT_NEAR(prescribed_state(m, rows.data(), 5.0).center.y, 0.4f, 1e-6f);
  EXPECT_NEAR(prescribed_state(m, rows.data(), 5.0).velocity.y, 0.0f, 1e-7f);
  expect_velocities_match_poses(m, rows.data(), 0.6);
  expect_velocities_match_poses(m, rows.data(), 1.5);
}

TEST(MovingSolids, FloatingStepFallsFreelyAndSpinsSteadily) {
  BodyMotion m;
  m.kind = MotionKind::floating;
  m.mass = 2.0f;
  m.inertia = {0.1f, 0.1f, 0.1f, 0, 0, 0};
  m.inverse_inertia = {10.0f, 10.0f, 10.0f, 0, 0, 0};
  BodyState s;
  s.angular_velocity = {0.0f, 0.0f, 3.0f};
  const float dt = 1e-3f;
  for (int k = 0; k < 1000; ++k) integrate_floating(m, {0.0f, 0.0f, -9.81f}, dt, s);
  EXPECT_NEAR(s.velocity.z, -9.81f, 1e-3f);
  EXPECT_NEAR(s.center.z, -0.5f * 9.81f * (1.0f + dt), 1e-3f);  // symplectic Euler: t (t + dt) g / 2
  // One second at 3 rad/s about z: the quaternion turned 3 rad, and the spin is unchanged.
  EXPECT_NEAR(s.angular_velocity.z, 3.0f, 1e-5f);
  EXPECT_NEAR(2.0f * std::atan2(s.orientation.z, s.orientation.w), 3.0f, 1e-2f);
  // A torque about x on a body at rest: omega_x grows as T / I.
  BodyState t;
  t.torque[0] = 0.2;
  integrate_floating(m, {}, dt, t);
  EXPECT_NEAR(t.angular_velocity.x, 0.2f / 0.1f * dt, 1e-6f);
}

std::string pool(const std::string& solids, const std::string& extra = "") {
  return extra + R"(name = "pool"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.24, 0.24, 0.3]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.01
[fluid]
viscosity_alpha = 0.1
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.24, 0.24, 0.16]
)" + solids;
}

void expect_scene_error(const std::string& text, int line, const std::string& key, const std::string& words) {
  try {
    parse_scene(text, kSceneFile);
    ADD_FAILURE() << "no error for key " << key;
  } catch (const SceneError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(":" + std::to_string(line) + ":"), std::string::npos) << what;
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_NE(what.find(words), std::string::npos) << what;
  }
}

TEST(MovingSolids, MotionKeysReadAndEachMistakeNamesItsKey) {
  const Scene scene = parse_scene(pool(R"(
[[solid]]
name = "piston"
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.03, 0.24, 0.2]
motion = "oscillate"
amplitude = [0.01, 0.0, 0.0]
frequency = 1.5
phase = 90
ramp = 1.0
[[solid]]
shape = "sphere"
center = [0.15, 0.12, 0.1]
radius = 0.03
motion = "rotate"
axis = [0, 0, 2]
angular_speed = 90
[gauges]
every_time = 0.01
[[gauge]]
name = "g"
type = "body"
solid = "solid1"
)"),
                                  kSceneFile);
  ASSERT_EQ(scene.solids.size(), 2u);
  EXPECT_EQ(scene.solids[0].name, "piston");
  EXPECT_EQ(scene.solids[0].motion.kind, MotionKind::oscillate);
  EXPECT_FLOAT_EQ(scene.solids[0].motion.frequency, 1.5f);
  EXPECT_NEAR(scene.solids[0].motion.phase, kPi / 2, 1e-6);
  EXPECT_EQ(scene.solids[1].name, "solid1");
  EXPECT_NEAR(scene.solids[1].motion.axis.z, 1.0f, 1e-6f);  // normalised
  EXPECT_NEAR(scene.solids[1].motion.angular_speed, kPi / 2, 1e-6);
  EXPECT_NEAR(scene.solids[1].motion.pivot.x, 0.15f, 1e-6f);  // the solid's centre unless given
  ASSERT_EQ(scene.gauges.size(), 1u);
  EXPECT_EQ(scene.gauges[0].solid, 1u);

  const std::string sphere = "[[solid]]\nshape = \"sphere\"\ncenter = [0.1, 0.1, 0.1]\nradius = 0.03\n";
  // The solid block starts on line 14 of pool(); its keys follow.
  expect_scene_error(pool(sphere + "motion = \"oscillate\"\nfrequency = 1.0\n"), 14, "amplitude",
                     "required key is missing");
  expect_scene_error(pool(sphere + "motion = \"linear\"\nvelocity = [1, 0, 0]\nfrequency = 2.0\n"), 20,
                     "frequency", "does not apply to motion = \"linear\"");
  expect_scene_error(pool(sphere + "motion = \"spin\"\n"), 18, "motion", "\"fixed\"");
  expect_scene_error(pool(sphere + "motion = \"rotate\"\naxis = [0, 0, 0]\nangular_speed = 1\n"), 19, "axis",
                     "non-zero direction");
  expect_scene_error(pool(sphere + "motion = \"floating\"\n"), 14, "density", "required key is missing");
  expect_scene_error(pool(sphere + "motion = \"table\"\ntable = \"no_such_table.csv\"\n"), 19, "table",
                     "cannot open the motion table");
  expect_scene_error(pool(sphere + "[gauges]\nevery_time = 0.01\n[[gauge]]\nname = \"f\"\ntype = \"force\"\n"
                                   "solid = \"lid\"\n"),
                     23, "solid", "no [[solid]] is named \"lid\"");
  expect_scene_error(pool(sphere + "name = \"a\"\n" + sphere + "name = \"a\"\n"), 23, "name",
                     "duplicate solid name \"a\"");
}

void expect_scene_error_at(const std::string& text, const std::filesystem::path& file,
                           const std::string& words) {
  try {
    parse_scene(text, file);
    ADD_FAILURE() << "no error: expected " << words;
  } catch (const SceneError& error) {
    EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("table"), std::string::npos) << error.what();
  }
}

TEST(MovingSolids, ATimeTableIsReadAndItsMistakesNameTheirCsvLine) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "surge_motion_table_test";
  std::filesystem::create_directories(folder);
  const std::filesystem::path scene_file = folder / "scene.toml";
  const auto write = [&](const std::string& csv) { std::ofstream(folder / "motion.csv") << csv; };
  const std::string text = pool(
      "[[solid]]\nshape = \"sphere\"\ncenter = [0.1, 0.1, 0.1]\nradius = 0.03\nmotion = \"table\"\n"
      "table = \"motion.csv\"\n");
  write("time,dx,dy,dz,angle\n0,0,0,0,0\n0.5,0.01,0,0,10\n1.0,0.02,0,0,0\n");
  const Scene scene = parse_scene(text, scene_file);
  ASSERT_EQ(scene.solids[0].table.size(), 3u);
  EXPECT_FLOAT_EQ(scene.solids[0].table[1].time, 0.5f);
  EXPECT_NEAR(scene.solids[0].table[1].angle, 10 * kPi / 180, 1e-6);
  write("time,dx,dy,dz\n0,0,0,0\n0.5,0.01,0\n");
  expect_scene_error_at(text, scene_file, "motion.csv:3: expected 4 columns");
  write("0,0,0,0\n0.5,0.01,0,0\n0.4,0.02,0,0\n");
  expect_scene_error_at(text, scene_file, "motion.csv:3: expected times increasing");
  write("0,0,0,0\n");
  expect_scene_error_at(text, scene_file, "expected at least two rows");
  write("0,0,0,0\n1,nan,0,0\n");
  expect_scene_error_at(text, scene_file, "motion.csv:2: expected finite numbers");
  std::filesystem::remove_all(folder);
}

// A fixed sphere held in a tank at rest feels the water's buoyancy and no net sideways force: the force
// gauge sums the same wall terms that hold the water up. The water it displaces is the lattice's: the fluid
// sites setup left out for it, m g (N_without - N_with), which the gauge must read within 3 %; the sphere's
// exact volume, rho0 g V, differs from that by the lattice's staircase (printed).
TEST(MovingSolids, AFixedSphereFeelsItsBuoyancy) {
  const auto tank = buoyancy_tank;
  const Scene scene = parse_scene(tank(R"(
[[solid]]
name = "ball"
shape = "sphere"
center = [0.08, 0.08, 0.06]
radius = 0.03
[gauges]
every_time = 0.002
[[gauge]]
name = "ball"
type = "force"
solid = "ball"
)"),
                                  kSceneFile);
  const SphSetup setup = build_setup(scene);
  const std::size_t without = build_setup(parse_scene(tank(""), kSceneFile)).fluid.size();
  auto sim = make_cpu_simulation(setup);
  ASSERT_TRUE(sim->set_gauges(gauge_probes(scene.gauges)));
  double fx = 0, fy = 0, fz = 0;
  long samples = 0;
  run_sampling(*sim, 0.3, 0.15, 0.002, [&](const std::vector<float>& v, double) {
    fx += v[0];
    fy += v[1];
    fz += v[2];
    ++samples;
  });
  ASSERT_GT(samples, 50);
  fx /= samples;
  fy /= samples;
  fz /= samples;
  const double g = 9.81;
  const double displaced = g * setup.params.particle_mass * double(without - setup.fluid.size());
  const double exact = setup.params.rest_density * g * 4.0 / 3.0 * kPi * 0.03 * 0.03 * 0.03;
  std::printf(
      "fixed sphere: F_z %.4f N; the lattice's displaced water %.4f N (%+.1f %%), rho0 g V %.4f N "
      "(%+.1f %%); F_x %.4f N, F_y %.4f N\n",
      fz, displaced, 100 * (fz / displaced - 1), exact, 100 * (fz / exact - 1), fx, fy);
  EXPECT_NEAR(fz / displaced, 1.0, 0.03);
  EXPECT_LT(std::fabs(fx), 0.02 * displaced);
  EXPECT_LT(std::fabs(fy), 0.02 * displaced);
}

// A fixed box held under water, under each fluid solver (archimedes_check.h): the force gauge reads the
// step's reaction to the solver's own wall terms, the force that moves a floating body, and at rest that is
// the buoyancy of the water the lattice displaced, with no sideways force. Measured (2-core machine,
// 2026-12-03): WCSPH -1.13 % over [0.15, 0.3] s, sideways 0.02 % of it; PBF -0.28 % over [0.8, 1.6] s
// (-1.00 % over [0.4, 0.8] s), sideways 0.3 %; both held to 3 %, as the fixed sphere. DFSPH's water in this
// tank does not come to rest: averages over [0.15, 0.3], [0.4, 0.8] and [0.8, 1.6] s read +2.15, +6.51 and
// +3.57 %, with sideways forces of 3-3.6 % of the buoyancy over the last; it is held to 7 % and 5 % sideways,
// which a wall term missing its gravity part or counted once instead of twice would still fail by far. PBF
// with MM13's artificial pressure (scorr_k = 0.1, the default before) read -10.3 % over [0.15, 0.3] s and
// -9.1 % over [0.4, 0.8] s: the cause of its floating box's 10 % (solver_parameters.h).
TEST(MovingSolids, AFixedBoxFeelsItsBuoyancyUnderEverySolver) {
  for (SolverKind solver : {SolverKind::wcsph, SolverKind::dfsph, SolverKind::pbf}) {
    const FixedBoxForce f = measure_fixed_box_force(ExecutionMode::cpu, solver, kSceneFile);
    const bool settles = solver != SolverKind::dfsph;
    EXPECT_NEAR(f.fz / f.displaced, 1.0, settles ? 0.03 : 0.07) << solver_name(solver);
    EXPECT_LT(std::fabs(f.fx), (settles ? 0.03 : 0.05) * f.displaced) << solver_name(solver);
    EXPECT_LT(std::fabs(f.fy), (settles ? 0.03 : 0.05) * f.displaced) << solver_name(solver);
  }
}

// Archimedes (tests/sim/archimedes_check.h) at 8 spacings a side: the light box's draft within 3 % of a/2
// over [1, 2] s. Measured on the CPU (2-core machine, 2026-12-03): -2.5 % (and -1.0 % in a run that differs
// only by rounding: the pool's sloshing does not repeat), of which the level gauge's offset from the
// hydrostatic surface is 1.5 to 2.5 % at this spacing (archimedes_check.h); the GPU test asserts the issue's
// 2 % at 16 and 25 spacings. The 4.1 % this test read before was an average over [0.6, 1] s, while the box
// still bobbed. The heavy box's bottom within half a spacing of the floor (measured +0.35 spacings on a
// film of water it has not squeezed out, and -0.30 in the other run, where it had: its bottom layer of
// particles nested between the floor's, which the contact's particle springs allow) and its mean speed far
// below its sinking speed (about 0.3 m/s): under 0.05 m/s (measured 0.008).
TEST(MovingSolids, ArchimedesFloatsHalfAndSinksOneAndAHalf) {
  const double spacing = 0.01;
  const ArchimedesResult r = measure_archimedes(ExecutionMode::cpu, spacing, kSceneFile);
  ASSERT_GT(r.samples, 100);
  EXPECT_NEAR(r.draft_ratio, 1.0, 0.03);
  EXPECT_LT(std::fabs(r.heavy_bottom), 0.5 * spacing);
  EXPECT_LT(r.heavy_speed, 0.05);
}

// Archimedes under the incompressible solvers (tests/sim/archimedes_check.h at 8 spacings a side): the
// bodies take the reaction to DFSPH's solves and to PBF's position corrections (dfsph_physics.h,
// pbf_physics.h). Measured on the 2-core machine, 2026-12-03: DFSPH's light box draft +4.47 % from a/2 (the
// WCSPH test's 5 % holds), its heavy box's bottom -0.30 spacings (pressed into the floor's contact springs),
// 1.5 cm/s on average; 3.6 min of CPU time (2 threads); +2.23 % on the merged tree with the body's own
// lattice. PBF's draft -0.42 %, its heavy box +0.42 spacings above the floor at 1.1 cm/s; 4.2 min of CPU
// time. PBF read +10.2 % (+11.4 % before the body's own lattice) while MM13's artificial pressure was on by
// default (scorr_k = 0.1): it carries part of the water's weight, which the walls' terms do not see (a box
// held under water felt 9-10 % less than its buoyancy: AFixedBoxFeelsItsBuoyancyUnderEverySolver; why it is
// off now: solver_parameters.h). PBF holds the WCSPH test's 3 %.
TEST(MovingSolids, ArchimedesUnderDfsph) {
  const double spacing = 0.01;
  const ArchimedesResult r = measure_archimedes(ExecutionMode::cpu, spacing, kSceneFile, SolverKind::dfsph);
  ASSERT_GT(r.samples, 100);
  EXPECT_NEAR(r.draft_ratio, 1.0, 0.05);
  EXPECT_LT(std::fabs(r.heavy_bottom), 0.5 * spacing);
  EXPECT_LT(r.heavy_speed, 0.1);
}
TEST(MovingSolids, ArchimedesUnderPbf) {
  const double spacing = 0.01;
  const ArchimedesResult r = measure_archimedes(ExecutionMode::cpu, spacing, kSceneFile, SolverKind::pbf);
  ASSERT_GT(r.samples, 100);
  EXPECT_NEAR(r.draft_ratio, 1.0, 0.03);
  EXPECT_LT(std::fabs(r.heavy_bottom), 0.5 * spacing);
  EXPECT_LT(r.heavy_speed, 0.1);
}

// Momentum goes where it should: a box of half the water's density let go under water rises, and the water
// flowing in under it moves down. The water's momentum sum m v_z is compared with a run whose box is held
// fixed (both start from the same lattice, whose settling moves the water too): with the box free it is
// lower, by about twice the box's own momentum for an incompressible fluid (the volume the box vacates is
// refilled by water twice its mass), so the system's centre of mass sinks. A reaction of the wrong sign, or
// none, fails the first check; a body that took momentum the fluid did not lose, the second. (WCSPH's
// coupling is the one these solvers follow; its start from an uncompressed lattice rings for longer.)
// Measured: DFSPH's water -1.64 times the box's momentum, PBF's -2.91; again on 2026-12-03, once PBF's
// s_corr was off by default, PBF -1.50 and DFSPH (which s_corr does not touch) -1.34. In a narrower tank
// (0.12 m, three spacings beside the box) PBF's box barely rose in 0.1 s (+0.0017 kg m/s) and its water moved
// up against the held run (+0.0105): there the lattice's settling outweighs the box, which is not understood
// yet.
TEST(MovingSolids, ASubmergedLightBoxRisesAndTheWaterMovesDown) {
  const auto tank = [](const std::string& motion) {
    return R"(name = "rising"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.16, 0.16, 0.24]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.01
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.16, 0.16, 0.16]
[[solid]]
name = "box"
shape = "box"
center = [0.08, 0.08, 0.07]
size = [0.06, 0.06, 0.06]
)" + motion +
           R"(
[gauges]
every_time = 0.01
[[gauge]]
name = "box"
type = "body"
solid = "box"
)";
  };
  for (const SolverKind solver : {SolverKind::dfsph, SolverKind::pbf}) {
    double fluid_momentum[2] = {}, box_momentum = 0;
    for (const bool floating : {true, false}) {
      Scene scene = parse_scene(tank(floating ? "motion = \"floating\"\ndensity = 500.0\n" : ""), kSceneFile);
      scene.solver = solver;
      const SphSetup setup = build_setup(scene);  // for the masses
      auto sim = make_simulation(scene, ExecutionMode::cpu, {});
      ASSERT_TRUE(sim->set_gauges(gauge_probes(scene.gauges)));
      while (sim->status().time_s < 0.1) sim->step();
      ASSERT_EQ(sim->status().instability, Instability::none) << sim->status().diagnosis();
      ParticleFrame frame;
      sim->download(frame);
      for (std::size_t i = 0; i < frame.size(); ++i)
        fluid_momentum[floating ? 0 : 1] += setup.params.particle_mass * frame.velocity[i].z;
      if (!floating) continue;
      std::vector<float> body;
      sim->sample_gauges(body);
      box_momentum = setup.solids.bodies[0].motion.mass * body[9];  // v_z
    }
    const double change = fluid_momentum[0] - fluid_momentum[1];
    std::printf(
        "%s: after 0.1 s the box's momentum %+.4f kg m/s; the water's %+.4f kg m/s, %+.4f with the box "
        "fixed: "
        "%+.2f times the box's\n",
        solver_name(solver), box_momentum, fluid_momentum[0], fluid_momentum[1], change / box_momentum);
    EXPECT_GT(box_momentum, 0.0) << solver_name(solver);
    EXPECT_LT(change, -box_momentum) << solver_name(solver);
  }
}

// A paddle turning about z drags the water round with it: the fluid's angular momentum about the shaft,
// L_z = sum m ((x - c) x v)_z, takes the paddle's sign, and the moment the fluid puts on the paddle opposes
// its turning. Both senses of rotation.
TEST(MovingSolids, ATurningPaddleGivesTheWaterAngularMomentumOfItsSign) {
  for (const float sense : {1.0f, -1.0f}) {
    const std::string text = R"(name = "paddle"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.2, 0.2, 0.12]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.01
[fluid]
viscosity_alpha = 0.1
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.2, 0.2, 0.08]
[[solid]]
name = "paddle"
shape = "box"
center = [0.1, 0.1, 0.05]
size = [0.14, 0.02, 0.06]
motion = "rotate"
axis = [0, 0, 1]
angular_speed = )" + std::to_string(sense * 180.0f) +
                             R"(
ramp = 0.1
[gauges]
every_time = 0.01
[[gauge]]
name = "paddle"
type = "force"
solid = "paddle"
)";
    const Scene scene = parse_scene(text, kSceneFile);
    const SphSetup setup = build_setup(scene);
    auto sim = make_cpu_simulation(setup);
    ASSERT_TRUE(sim->set_gauges(gauge_probes(scene.gauges)));
    double moment = 0;
    long samples = 0;
    run_sampling(*sim, 0.3, 0.1, 0.01, [&](const std::vector<float>& v, double) {
      moment += v[5];
      ++samples;
    });
    ParticleFrame frame;
    sim->download(frame);
    double angular_momentum = 0;
    for (std::size_t i = 0; i < frame.size(); ++i) {
      const double rx = frame.position[i].x - 0.1, ry = frame.position[i].y - 0.1;
      angular_momentum += setup.params.particle_mass * (rx * frame.velocity[i].y - ry * frame.velocity[i].x);
    }
    std::printf("paddle turning %+.0f deg/s: fluid L_z %+.3e kg m^2/s, mean moment on the paddle %+.3e N m\n",
                sense * 180.0f, angular_momentum, moment / samples);
    EXPECT_GT(sense * angular_momentum, 0.0);
    EXPECT_LT(sense * moment / samples, 0.0);
  }
}

}  // namespace
}  // namespace surge
