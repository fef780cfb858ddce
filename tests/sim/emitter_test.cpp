// The emitter ([[emitter]], sim/sph/emitter.h): the nozzle's layer, the schedule of layers against
// floor(speed t / spacing) + 1, the mass it adds, the velocity particles leave with, the slot rule, the
// switch, a full capacity, on the CPU backends of every SPH solver; and the scene keys' errors.
#include "sim/sph/emitter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

// A tank 0.4 x 0.4 x 0.6 m with a pool 0.06 m deep (20 x 20 x 3 = 1200 particles at 0.02 m) and a nozzle
// 0.3 m above the floor pointing down: radius 0.03 m = 1.5 spacings holds the 3 x 3 lattice sites with
// i^2 + j^2 <= 2.25, 9 particles a layer. `extra` is appended to the [[emitter]] table; `solver` and
// `gravity` as given.
std::string fountain_scene(const std::string& extra, const std::string& solver = "wcsph",
                           const std::string& gravity = "[0, 0, -9.81]",
                           const std::string& center = "[0.2, 0.2, 0.3]") {
  return "solver = \"" + solver + R"("
[domain]
min = [0, 0, 0]
max = [0.4, 0.4, 0.6]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.02
[fluid]
gravity = )" +
         gravity + R"(
[[fluid.block]]
shape = "box"
min = [0, 0, 0]
max = [0.4, 0.4, 0.06]
[[emitter]]
center = )" +
         center + R"(
direction = [0, 0, -2]
radius = 0.03
speed = 1.0
)" + extra;
}

constexpr std::size_t kInitial = 1200;
constexpr std::size_t kLayer = 9;
constexpr double kSpacing = 0.02, kSpeed = 1.0;

std::unique_ptr<Simulation> cpu_simulation(const std::string& text) {
  return make_simulation(parse_scene(text, "fountain.toml"), ExecutionMode::cpu);
}

// Steps until the simulated time reaches `time_s`; returns the last status.
StepStatus run_until(Simulation& simulation, double time_s) {
  StepStatus status = simulation.status();
  while (status.time_s < time_s && status.instability == Instability::none) {
    simulation.step();
    status = simulation.status();
  }
  return status;
}

std::size_t expected_layers(double time_s) {
  return std::size_t(std::floor(kSpeed * time_s / kSpacing)) + 1;
}

TEST(EmitterNozzle, CircleLayerIsTheLatticeInsideTheDisc) {
  // radius 2.5 spacings: the integer pairs with i^2 + j^2 <= 6.25 number 21 (1 + 4 + 4 + 4 + 8).
  for (const Vec3f direction : {Vec3f{0, 0, 1}, Vec3f{1, 2, -0.5f}}) {
    const EmitterSetup e = make_emitter({0, 0, 0}, direction, 0.025f, false, 1.0f, 0.01f, 0.0, 1.0, 100);
    ASSERT_EQ(e.layer.size(), 21u);
    EXPECT_EQ(e.nozzle.layer_size, 21u);
    EXPECT_NEAR(std::sqrt(length_squared(e.nozzle.direction)), 1.0, 1e-6);
    float closest = 1e9f;
    for (std::size_t a = 0; a < e.layer.size(); ++a) {
      const Vec3f x = xyz(e.layer[a]);
      EXPECT_NEAR(dot(x, e.nozzle.direction), 0.0, 1e-7) << "offsets lie in the nozzle's plane";
      EXPECT_LE(std::sqrt(length_squared(x)), 0.025f + 1e-6f);
      for (std::size_t b = a + 1; b < e.layer.size(); ++b)
        closest = std::min(closest, std::sqrt(length_squared(x - xyz(e.layer[b]))));
    }
    EXPECT_NEAR(closest, 0.01, 1e-6) << "neighbours in a layer sit one spacing apart";
  }
}

TEST(EmitterNozzle, SquareLayerFillsTheSquare) {
  // Half side 1.5 spacings: sites -1, 0, 1 along each side.
  const EmitterSetup e = make_emitter({0, 0, 0}, {1, 0, 0}, 0.015f, true, 1.0f, 0.01f, 0.0, 1.0, 100);
  EXPECT_EQ(e.layer.size(), 9u);
}

TEST(EmitterNozzle, ScheduleAndSlot) {
  const EmitterSetup e = make_emitter({0, 0, 0}, {0, 0, 1}, 0.02f, false, 2.0f, 0.01f, 0.1, 0.2, 100);
  // Layer k is due at 0.1 + k * 0.005 s, until 0.2 s.
  EXPECT_EQ(latest_due_layer(e.nozzle, 0.05), -1);
  EXPECT_EQ(latest_due_layer(e.nozzle, 0.1), 0);
  EXPECT_EQ(latest_due_layer(e.nozzle, 0.1049), 0);
  EXPECT_EQ(latest_due_layer(e.nozzle, 0.1051), 1);
  EXPECT_EQ(latest_due_layer(e.nozzle, 0.21), -1);
  EXPECT_NEAR(layer_advance(e.nozzle, 1, 0.106), 2.0 * 0.001, 1e-6);
  // The slot of a layer at the nozzle: half a spacing either side along the jet, radius + half a spacing.
  EXPECT_TRUE(in_layer_slot(e.nozzle, {0.0f, 0.0f, 0.004f}, 0.0f));
  EXPECT_TRUE(in_layer_slot(e.nozzle, {0.024f, 0.0f, 0.0f}, 0.0f));
  EXPECT_FALSE(in_layer_slot(e.nozzle, {0.026f, 0.0f, 0.0f}, 0.0f));
  EXPECT_FALSE(in_layer_slot(e.nozzle, {0.0f, 0.0f, 0.01f}, 0.0f)) << "the previous layer, one spacing ahead";
  EXPECT_FALSE(in_layer_slot(e.nozzle, {0.0f, 0.0f, -0.006f}, 0.0f));
}

TEST(EmitterWcsph, CountFollowsTheScheduleAndMassGrowsByTheEmittedParticles) {
  auto simulation = cpu_simulation(fountain_scene("max_particles = 1000\n"));
  ASSERT_TRUE(simulation->has_emitter());
  EXPECT_EQ(simulation->fluid_count(), kInitial);
  EXPECT_EQ(simulation->capacity(), kInitial + 1000);
  double mass_kg = 0;
  for (const NamedValue& v : simulation->parameters())
    if (v.name == "particle_mass_kg") mass_kg = std::get<double>(v.value);
  ASSERT_GT(mass_kg, 0.0);
  for (const double checkpoint : {0.001, 0.03, 0.07, 0.1}) {
    const StepStatus status = run_until(*simulation, checkpoint);
    ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
    const std::size_t emitted = simulation->fluid_count() - kInitial;
    ASSERT_EQ(emitted % kLayer, 0u) << "whole layers only";
    const double layers = double(emitted / kLayer), expected = double(expected_layers(status.time_s));
    EXPECT_LE(std::abs(layers - expected), 1.0) << "at t = " << status.time_s;
    ParticleFrame frame;
    simulation->download(frame);
    ASSERT_EQ(frame.size(), simulation->fluid_count());
    // Every particle once: the ids are 0 .. N-1 (no particle lost, none born twice).
    std::vector<std::uint32_t> ids = frame.id;
    std::sort(ids.begin(), ids.end());
    for (std::size_t k = 0; k < ids.size(); ++k) ASSERT_EQ(ids[k], k);
    // The fluid's mass: the initial particles' plus the emitted ones'.
    EXPECT_DOUBLE_EQ(mass_kg * double(frame.size()) - mass_kg * double(kInitial), mass_kg * double(emitted));
  }
  EXPECT_GE(simulation->fluid_count(), kInitial + 5 * kLayer) << "0.1 s at 1 m/s: 5 or 6 layers";
}

TEST(EmitterWcsph, ParticlesLeaveAtTheNozzleVelocityOneSpacingApart) {
  // No gravity: the jet keeps its speed, so layers stay one spacing apart.
  auto simulation = cpu_simulation(fountain_scene("max_particles = 1000\n", "wcsph", "[0, 0, 0]"));
  simulation->step();  // layer 0 enters at t = 0
  ParticleFrame frame;
  simulation->download(frame);
  ASSERT_EQ(frame.size(), kInitial + kLayer);
  const float dt = simulation->status().dt_s;
  for (std::size_t i = 0; i < frame.size(); ++i) {
    if (frame.id[i] < kInitial) continue;
    const Vec3f v = xyz(frame.velocity[i]), x = xyz(frame.position[i]);
    // Born at rest density with the nozzle velocity (0, 0, -1); one step of pressure from the pool 0.24 m
    // away cannot change that by more than a few per cent.
    EXPECT_NEAR(v.z, -1.0, 0.02);
    EXPECT_NEAR(v.x, 0.0, 0.02);
    EXPECT_NEAR(v.y, 0.0, 0.02);
    EXPECT_NEAR(x.z, 0.3 - dt * 1.0, 1e-4) << "entered at the nozzle and moved one step";
  }
  run_until(*simulation, 0.021);  // layer 1 due at 0.02 s
  simulation->download(frame);
  ASSERT_EQ(frame.size(), kInitial + 2 * kLayer);
  double z0 = 0, z1 = 0;
  for (std::size_t i = 0; i < frame.size(); ++i) {
    if (frame.id[i] >= kInitial + kLayer)
      z1 += frame.position[i].z / double(kLayer);
    else if (frame.id[i] >= kInitial)
      z0 += frame.position[i].z / double(kLayer);
  }
  EXPECT_NEAR(z1 - z0, kSpacing, 0.05 * kSpacing) << "the second layer follows one spacing behind";
  for (std::size_t i = 0; i < frame.size(); ++i)
    if (frame.id[i] >= kInitial + kLayer) {
      // The nozzle guides its newest layer: exactly the nozzle velocity.
      EXPECT_EQ(frame.velocity[i].z, -1.0f);
      EXPECT_EQ(frame.velocity[i].x, 0.0f);
    }
}

// A thin jet thrown upwards slows down along its axis, so each layer closes in on the one ahead; WCSPH's
// stiff pressure then kicks the newest layer back into the nozzle unless the nozzle guides it
// (in_nozzle_guide), and the layers after it are skipped.
TEST(EmitterWcsph, JetThrownUpwardsLosesNoLayer) {
  auto simulation = cpu_simulation(R"([domain]
min = [0, 0, 0]
max = [0.3, 0.1, 0.3]
[resolution]
spacing = 0.01
[[fluid.block]]
shape = "box"
min = [0, 0, 0]
max = [0.3, 0.1, 0.02]
[[emitter]]
center = [0.05, 0.05, 0.1]
direction = [1, 0, 1]
radius = 0.02
speed = 2.0
max_particles = 2000
)");
  const std::size_t initial = simulation->fluid_count(), layer = 13;  // 30 x 10 x 2; i^2 + j^2 <= 4
  ASSERT_EQ(initial, 600u);
  for (const double checkpoint : {0.012, 0.022, 0.032, 0.042}) {
    const StepStatus status = run_until(*simulation, checkpoint);
    ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
    const double layers = double((simulation->fluid_count() - initial) / layer);
    // A layer every 0.005 s.
    EXPECT_LE(std::abs(layers - (std::floor(status.time_s / 0.005) + 1)), 1.0) << "at t = " << status.time_s;
  }
}

TEST(EmitterWcsph, FullCapacityStopsTheEmitterAndTheRunStaysStable) {
  auto simulation = cpu_simulation(fountain_scene("max_particles = 27\n"));  // three layers
  StepStatus status = run_until(*simulation, 0.1);
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  EXPECT_EQ(simulation->fluid_count(), kInitial + 27);
  EXPECT_TRUE(status.emitter_full);
  for (int k = 0; k < 200; ++k) simulation->step();
  status = simulation->status();
  EXPECT_EQ(status.instability, Instability::none) << status.diagnosis();
  EXPECT_EQ(simulation->fluid_count(), kInitial + 27);
}

TEST(EmitterWcsph, NoLayerWhereFluidFillsTheNozzle) {
  // The nozzle inside the pool at rest: every layer's slot holds fluid, so every layer is skipped.
  auto simulation = cpu_simulation(
      fountain_scene("max_particles = 1000\n", "wcsph", "[0, 0, -9.81]", "[0.21, 0.21, 0.03]"));
  const StepStatus status = run_until(*simulation, 0.05);
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  EXPECT_EQ(simulation->fluid_count(), kInitial);
  EXPECT_FALSE(status.emitter_full);
}

TEST(EmitterWcsph, SwitchedOffEmitsNothingAndRestartsAtTheNozzle) {
  auto simulation = cpu_simulation(fountain_scene("max_particles = 1000\n", "wcsph", "[0, 0, 0]"));
  ASSERT_TRUE(simulation->set_emitter_enabled(false));
  EXPECT_FALSE(simulation->emitter_enabled());
  run_until(*simulation, 0.05);
  EXPECT_EQ(simulation->fluid_count(), kInitial);
  simulation->set_emitter_enabled(true);
  simulation->step();
  ParticleFrame frame;
  simulation->download(frame);
  ASSERT_EQ(frame.size(), kInitial + kLayer);
  for (std::size_t i = 0; i < frame.size(); ++i)
    if (frame.id[i] >= kInitial) {
      // The newest layer due entered less than one spacing ahead of the nozzle (plus one step's motion).
      EXPECT_LE(frame.position[i].z, 0.3 + 1e-6);
      EXPECT_GE(frame.position[i].z, 0.3 - kSpacing - 0.002);
    }
}

TEST(EmitterWcsph, SceneWithoutEmitterReportsNone) {
  Scene scene = parse_scene(fountain_scene("max_particles = 100\n"), "fountain.toml");
  scene.emitters.clear();
  auto simulation = make_simulation(scene, ExecutionMode::cpu);
  EXPECT_FALSE(simulation->has_emitter());
  EXPECT_FALSE(simulation->set_emitter_enabled(true));
  EXPECT_EQ(simulation->capacity(), simulation->fluid_count());
}

TEST(EmitterModes, HybridModesRefuseAnEmitter) {
  const Scene scene = parse_scene(fountain_scene("max_particles = 100\n"), "fountain.toml");
  EXPECT_THROW(make_simulation(scene, ExecutionMode::hybrid), std::invalid_argument);
}

class EmitterIncompressible : public testing::TestWithParam<std::string> {};

TEST_P(EmitterIncompressible, CountFollowsTheSchedule) {
  auto simulation = cpu_simulation(fountain_scene("max_particles = 1000\n", GetParam()));
  const StepStatus status = run_until(*simulation, 0.045);
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  const std::size_t emitted = simulation->fluid_count() - kInitial;
  ASSERT_EQ(emitted % kLayer, 0u);
  EXPECT_LE(std::abs(double(emitted / kLayer) - double(expected_layers(status.time_s))), 1.0);
  EXPECT_GE(emitted, 2 * kLayer);
  ParticleFrame frame;
  simulation->download(frame);
  ASSERT_EQ(frame.size(), kInitial + emitted);
  std::vector<std::uint32_t> ids = frame.id;
  std::sort(ids.begin(), ids.end());
  for (std::size_t k = 0; k < ids.size(); ++k) ASSERT_EQ(ids[k], k);
  for (std::size_t i = 0; i < frame.size(); ++i) ASSERT_TRUE(std::isfinite(frame.position[i].z));
}

TEST_P(EmitterIncompressible, FullCapacityStops) {
  auto simulation = cpu_simulation(fountain_scene("max_particles = 18\n", GetParam()));
  const StepStatus status = run_until(*simulation, 0.05);
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  EXPECT_EQ(simulation->fluid_count(), kInitial + 18);
  EXPECT_TRUE(status.emitter_full);
}

INSTANTIATE_TEST_SUITE_P(Solvers, EmitterIncompressible, testing::Values("dfsph", "pbf"));

// ---- Scene errors: FILE:LINE: key 'emitter[0].KEY': problem

testing::AssertionResult fails_at(const std::string& text, int line, const std::string& key,
                                  const std::string& phrase) {
  try {
    const Scene scene = parse_scene(text, "e.toml");
    build_setup(scene);
  } catch (const SceneError& error) {
    const std::string what = error.what();
    const std::string prefix = "e.toml:" + std::to_string(line) + ": key '" + key + "': ";
    if (error.line() == line && error.key() == key && what.starts_with(prefix) &&
        what.find(phrase) != std::string::npos)
      return testing::AssertionSuccess();
    return testing::AssertionFailure() << "got: " << what;
  }
  return testing::AssertionFailure() << "no SceneError thrown";
}

// fountain_scene's [[emitter]] table starts at line 14; center is line 15, direction 16, radius 17, speed 18,
// and the text appended starts at line 19.
TEST(EmitterSceneErrors, EachKeyIsChecked) {
  const std::string ok = "max_particles = 100\n";
  EXPECT_TRUE(fails_at(fountain_scene(ok + "nozzle = 1\n"), 20, "emitter[0].nozzle", "unknown key"));
  EXPECT_TRUE(fails_at(fountain_scene(""), 14, "emitter[0].max_particles", "required key is missing"));
  EXPECT_TRUE(fails_at(fountain_scene("max_particles = 0\n"), 19, "emitter[0].max_particles", "integer"));
  EXPECT_TRUE(fails_at(fountain_scene(ok + "start = -1\n"), 20, "emitter[0].start", ">= 0"));
  EXPECT_TRUE(fails_at(fountain_scene(ok + "start = 0.5\nend = 0.2\n"), 21, "emitter[0].end", "after start"));
  EXPECT_TRUE(fails_at(fountain_scene(ok + "shape = \"hexagon\"\n"), 20, "emitter[0].shape", "\"circle\""));
  EXPECT_TRUE(fails_at(fountain_scene(ok, "wcsph", "[0, 0, -9.81]", "[0.2, 0.2, 0.9]"), 15,
                       "emitter[0].center", "not inside the domain"));
  EXPECT_TRUE(fails_at(fountain_scene(ok, "wcsph", "[0, 0, -9.81]", "[0.39, 0.2, 0.3]"), 15,
                       "emitter[0].center", "x extent"));
  // Capacity below one layer (9 particles at this spacing), found when the particles are placed.
  EXPECT_TRUE(fails_at(fountain_scene("max_particles = 5\n"), 19, "emitter[0].max_particles", "one layer"));
  // A second [[emitter]] is reported at its header.
  EXPECT_TRUE(fails_at(fountain_scene(ok + "[[emitter]]\ncenter = [0.1, 0.1, 0.3]\n"), 20, "emitter[1]",
                       "one [[emitter]] per scene"));
}

TEST(EmitterSceneErrors, DirectionRadiusSpeed) {
  std::string text = fountain_scene("max_particles = 100\n");
  const auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_TRUE(fails_at(replace("direction = [0, 0, -2]", "direction = [0, 0, 0]"), 16, "emitter[0].direction",
                       "non-zero"));
  EXPECT_TRUE(fails_at(replace("radius = 0.03", "radius = -0.03"), 17, "emitter[0].radius", "> 0"));
  EXPECT_TRUE(fails_at(replace("speed = 1.0", "speed = 0"), 18, "emitter[0].speed", "> 0"));
}

TEST(EmitterSceneErrors, OnlyForSphSolvers) {
  const std::string text = R"(solver = "nbody"
[nbody]
method = "all_pairs"
G = 1.0
dt = 0.001
[[nbody.system]]
model = "two_body"
masses = [1.0, 0.001]
semi_major_axis = 1.0
eccentricity = 0.5
[[emitter]]
center = [0, 0, 0]
)";
  try {
    parse_scene(text, "e.toml");
    FAIL() << "no SceneError thrown";
  } catch (const SceneError& error) {
    EXPECT_EQ(error.key(), "emitter") << error.what();
    EXPECT_NE(std::string(error.what()).find("applies to the SPH solvers"), std::string::npos)
        << error.what();
  }
}

TEST(EmitterScenes, FountainLoadsAndEmits) {
  const Scene scene = load_scene(std::filesystem::path(SURGE_SOURCE_DIR) / "scenes" / "fountain.toml");
  ASSERT_EQ(scene.emitters.size(), 1u);
  const SphSetup setup = build_setup(scene);
  EXPECT_TRUE(setup.emitter.present);
  EXPECT_GT(setup.emitter.nozzle.layer_size, 0u);
  EXPECT_EQ(setup.capacity(), setup.fluid.size() + std::size_t(scene.emitters.front().max_particles));
}

// A horizontal jet in free flight: each layer's centre falls on the ballistic parabola of its nozzle,
// z = z0 - g (x - x0 - s)^2 / (2 v^2), which starts one spacing s past the nozzle's centre, where the
// nozzle's guide lets go of the layer (sim/sph/emitter.h). The jet's inner pressure acts between its
// particles and moves a layer's centre only through the layers beside it; the front layer has none ahead.
TEST(Emitter, AHorizontalJetFollowsTheBallisticParabola) {
  const std::string text = R"(solver = "wcsph"
[domain]
min = [0, 0, 0]
max = [0.6, 0.4, 0.6]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.02
[fluid]
gravity = [0, 0, -9.81]
[[fluid.block]]
shape = "box"
min = [0, 0, 0]
max = [0.6, 0.4, 0.04]
[[emitter]]
center = [0.05, 0.2, 0.35]
direction = [1, 0, 0]
radius = 0.03
speed = 1.5
max_particles = 300
)";
  auto simulation = cpu_simulation(text);
  const std::size_t initial = simulation->fluid_count();
  // At 0.2 s the front has flown 0.30 m and dropped 0.196 m: still 0.11 m above the pool.
  const StepStatus status = run_until(*simulation, 0.2);
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  ParticleFrame frame;
  simulation->download(frame);
  const double x0 = 0.05, z0 = 0.35, v = 1.5, g = 9.81;
  // Layer centres by creation id (kLayer particles a layer, in order), out of the nozzle's guide.
  std::vector<Vec3f> sum((frame.size() - initial) / kLayer + 1, Vec3f{});
  std::vector<int> count(sum.size(), 0);
  for (std::size_t k = 0; k < frame.size(); ++k) {
    if (frame.id[k] < initial) continue;
    const std::size_t layer = (frame.id[k] - initial) / kLayer;
    sum[layer] += xyz(frame.position[k]);
    ++count[layer];
  }
  double largest_miss = 0, front_miss = -1;
  int layers_checked = 0;
  double farthest = 0;
  for (std::size_t layer = 0; layer < sum.size(); ++layer) {
    if (count[layer] != int(kLayer)) continue;
    const Vec3f centre = (1.0f / float(kLayer)) * sum[layer];
    const double dx = centre.x - x0;
    if (dx < 2 * kSpacing) continue;      // still in the nozzle's guide
    const double flight = dx - kSpacing;  // past the guide
    const double miss = std::abs(centre.z - (z0 - g * flight * flight / (2 * v * v)));
    if (layer == 0)
      front_miss = miss;
    else
      largest_miss = std::max(largest_miss, miss);
    farthest = std::max(farthest, dx);
    ++layers_checked;
  }
  std::printf(
      "%d layers in flight up to %.3f m from the nozzle: largest distance of a layer's centre from "
      "the parabola %.2e m (%.3f spacings), of the front layer %.2e m (%.3f spacings)\n",
      layers_checked, farthest, largest_miss, largest_miss / kSpacing, front_miss, front_miss / kSpacing);
  EXPECT_GE(layers_checked, 10);
  EXPECT_GT(farthest, 0.25) << "the jet flew far enough for the drop (0.17 m there) to count";
  // Measured on the CPU: 0.022 spacings behind the front, 0.21 at the front, which the layer behind holds
  // back (a front particle's density sum misses its neighbours ahead).
  EXPECT_LT(largest_miss, 0.05 * kSpacing) << "the layers behind the front";
  EXPECT_LT(front_miss, 0.3 * kSpacing) << "the front layer";
}

}  // namespace
}  // namespace surge
