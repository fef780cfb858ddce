// Granular scenes: the [dem] table and [[dem.block]] tables load with their defaults, and each kind of
// mistake is reported at the right line and key with a message that says what was expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/backend/dem_simulation.h"
#include "sim/dem/dem_setup.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"

namespace surge {
namespace {

// A valid granular scene of exactly 12 lines; [dem] is line 5 and the block's header line 7.
const std::string kHead = R"(solver = "dem"
[domain]
min = [0, 0, 0]
max = [1, 1, 1]
[dem]
)";
const std::string kDemKeys = "stiffness = 1000.0\n";  // line 6
const std::string kBlock = R"([[dem.block]]
shape = "box"
min = [0, 0, 0]
max = [0.5, 0.5, 0.5]
grain_radius = 0.05
density = 2500
)";

// kHead + `dem` (the [dem] keys from line 6) + kBlock + `block` (more block keys, after line 12 when dem
// is one line) + `rest`.
std::string scene_text(const std::string& dem = kDemKeys, const std::string& block = "",
                       const std::string& rest = "") {
  return kHead + dem + kBlock + block + rest;
}

testing::AssertionResult fails_with(const std::string& text, int line, const std::string& key,
                                    const std::string& phrase) {
  try {
    build_dem_setup(parse_scene(text, "t.toml"));
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

TEST(DemSceneLoader, MinimalSceneTakesTheDefaults) {
  const Scene scene = parse_scene(scene_text(), "t.toml");
  EXPECT_EQ(scene.solver, SolverKind::dem);
  EXPECT_EQ(scene.dem.normal_model, NormalModel::linear);
  EXPECT_FLOAT_EQ(scene.dem.stiffness, 1000.0f);
  EXPECT_FLOAT_EQ(scene.dem.restitution, 0.5f);
  EXPECT_LT(scene.dem.normal_damping, 0.0f) << "absent: damping from the restitution";
  EXPECT_EQ(scene.dem.friction_model, FrictionModel::coulomb);
  EXPECT_FLOAT_EQ(scene.dem.friction, 0.5f);
  EXPECT_EQ(scene.dem.wall_model, WallModel::contact);
  EXPECT_FLOAT_EQ(scene.dem.collision_time_fraction, 0.02f);
  EXPECT_FLOAT_EQ(scene.dem.gravity.z, -9.81f);
  ASSERT_EQ(scene.dem.blocks.size(), 1u);
  EXPECT_EQ(scene.dem.blocks[0].line, 7);
  EXPECT_FLOAT_EQ(scene.dem.blocks[0].grain_radius_max, 0.05f);

  const DemSetup setup = build_dem_setup(scene);
  EXPECT_EQ(setup.grains.size(), 125u) << "5 x 5 x 5 sites of one diameter in the 0.5 m box";
  EXPECT_FLOAT_EQ(setup.grid.cell_size, 0.1f);
  EXPECT_EQ(setup.grid.nx, 10);
  // dt = 0.02 pi sqrt(m* / k), m* = m / 2 of a 5 cm grain of 2500 kg/m^3.
  const double mass = 2500.0 * 4.0 / 3.0 * 3.14159265358979 * 0.05 * 0.05 * 0.05;
  EXPECT_NEAR(setup.params.dt, 0.02 * linear_collision_time(1000.0, mass / 2), 1e-9);
  EXPECT_NEAR(setup.grains.velocity[0].w, mass, 1e-6 * mass) << "velocity w carries the mass";
  EXPECT_FLOAT_EQ(setup.grains.position[0].w, 0.05f) << "position w carries the radius";
  EXPECT_EQ(setup.params.wall_mask, 0b011111u) << "default walls: all but z+";
}

TEST(DemSceneLoader, ShippedGranularScenesBuild) {
  for (const char* name : {"particles_box", "particles_box_fixed_radius", "particles_box_mindlin",
                           "granular_column", "hourglass"}) {
    SCOPED_TRACE(name);
    const Scene scene = load_scene(std::string(SURGE_SOURCE_DIR) + "/scenes/" + name + ".toml");
    EXPECT_EQ(scene.solver, SolverKind::dem);
    const DemSetup setup = build_dem_setup(scene);
    EXPECT_GT(setup.grains.size(), 1000u);
    EXPECT_LT(setup.params.dt, 0.64 * setup.params.collision_time) << "inside the stability limit";
  }
}

// The hourglass plate is one diameter thick (z 0.2 to 0.204, radius 0.002): two halves of 22 x 5 fixed
// grains. Float rounding of that extent once left the plate empty, and the grains fell through the silo.
TEST(DemSceneLoader, HourglassPlateHasItsFixedGrains) {
  const DemSetup setup = build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/hourglass.toml"));
  EXPECT_EQ(setup.fixed.size(), 2u * 22u * 5u);
}

TEST(DemSceneLoader, ParticlesBoxMatchesTheSampleAtEachSize) {
  // NVIDIA's sample: 16384 grains of radius 1/64 on a 64^3 grid; run at 1M grains on 128^3 and 4M on
  // 256^3, with the radius 1/grid.
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/particles_box.toml");
  const DemSetup own = build_dem_setup(scene);
  EXPECT_EQ(own.grains.size(), 16384u);
  EXPECT_EQ(own.grid.nx, 64);
  EXPECT_FLOAT_EQ(own.params.dt, 0.5f);
  EXPECT_FLOAT_EQ(own.params.stiffness, 1.0f);
  EXPECT_EQ(own.params.wall_mask, 0b111111u);
  EXPECT_NEAR(own.grains.position[0].x, -1.0f + 1.0f / 64.0f, 0.01f / 64.0f)
      << "first site one radius from the corner, jittered by 1 % of a radius";
  const DemSetup million = build_dem_setup(scene, 1048576);
  EXPECT_EQ(million.grains.size(), 1048576u);
  EXPECT_EQ(million.grid.nx, 128);
  EXPECT_EQ(million.grid.nz, 128);
  EXPECT_FLOAT_EQ(million.params.max_radius, 1.0f / 128.0f);
}

TEST(DemSceneLoader, FixedRadiusVariantKeepsTheSamplesRadius) {
  // NVIDIA's sample at -n=1048576 -grid=128 keeps radius 1/64: its lattice of 102 a side overflows the box.
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/particles_box_fixed_radius.toml");
  const DemSetup setup = build_dem_setup(scene, 1048576);
  EXPECT_EQ(setup.grains.size(), 1048576u);
  EXPECT_FLOAT_EQ(setup.params.max_radius, 1.0f / 64.0f);
  EXPECT_EQ(setup.grid.nx, 64) << "grid over the domain only";
  float highest = -1;
  for (const Vec4f& x : setup.grains.position) highest = std::max(highest, x.x);
  EXPECT_GT(highest, 2.0f) << "sites up to -1 + 1/64 + 101/32 = 2.17";
  // One step clamps them into the box.
  auto simulation = make_dem_cpu_simulation(build_dem_setup(scene, 20000));
  simulation->step();
  ParticleFrame frame;
  simulation->download(frame);
  EXPECT_EQ(simulation->status().instability, Instability::none) << simulation->status().diagnosis();
  for (const Vec4f& x : frame.position) EXPECT_LE(x.x, 1.0f - 1.0f / 64.0f + 1e-6f);
  EXPECT_TRUE(fails_with(scene_text(kDemKeys, "overflow = \"clamp\"\n"), 13, "dem.block[0].overflow",
                         "does not apply to a \"box\" block"));
  const std::string lattice = kHead + kDemKeys +
                              "[[dem.block]]\nshape = \"lattice\"\nmin = [0, 0, 0]\ncount = 10\n"
                              "grain_radius = 0.1\nmass = 1\noverflow = \"clamp\"\n";
  EXPECT_TRUE(fails_with(lattice, 13, "dem.block[0].overflow", "needs [dem] wall_model = \"reflect\""));
}

TEST(DemSceneLoader, ParticlesOverrideScalesFilledBlocks) {
  const Scene scene = parse_scene(scene_text(), "t.toml");
  const DemSetup setup = build_dem_setup(scene, 1000);
  EXPECT_NEAR(double(setup.grains.size()), 1000.0, 100.0);
  EXPECT_LT(setup.params.max_radius, 0.05f);
}

TEST(DemSceneLoader, SolverTablesDoNotMix) {
  EXPECT_TRUE(fails_with(scene_text(kDemKeys, "", "[resolution]\nspacing = 0.1\n"), 13, "resolution",
                         "does not apply to solver \"dem\""));
  EXPECT_TRUE(fails_with(
      "[domain]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n[resolution]\nspacing = 0.1\n[dem]\nstiffness = 1.0\n", 6,
      "dem", "applies to solver = \"dem\" only"));
  EXPECT_TRUE(fails_with("solver = \"dem\"\n[domain]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n", 0, "dem",
                         "required table [dem] is missing"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys, "", "[time]\ncfl = 0.3\n"), 14, "time.cfl",
                         "does not apply to solver \"dem\""));
  EXPECT_TRUE(fails_with("solver = \"dem\"\n[domain]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nwall_layers = 2\n" +
                             std::string("[dem]\n") + kDemKeys + kBlock,
                         5, "domain.wall_layers", "does not apply to solver \"dem\""));
  EXPECT_TRUE(fails_with("solver = \"grains\"\n", 1, "solver",
                         "expected one of \"wcsph\", \"dfsph\", \"pbf\", \"nbody\", \"dem\""));
}

TEST(DemSceneLoader, ContactLawKeysAreChecked) {
  EXPECT_TRUE(fails_with(scene_text("restitution = 0.5\n"), 5, "dem.stiffness", "required key is missing"));
  EXPECT_TRUE(
      fails_with(scene_text("stiffness = -1\n"), 6, "dem.stiffness", "expected a number > 0 [N/m], got -1"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "restitution = 1.5\n"), 7, "dem.restitution",
                         "expected a number in (0, 1], got 1.5"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "restitution = 0.5\nnormal_damping = 0.1\n"), 8,
                         "dem.normal_damping", "at most one of 'restitution' and 'normal_damping'"));
  EXPECT_TRUE(fails_with(scene_text("normal_model = \"hertz\"\nstiffness = 10.0\n"), 7, "dem.stiffness",
                         "does not apply to normal_model \"hertz\""));
  EXPECT_TRUE(fails_with(scene_text("normal_model = \"hertz\"\n"), 5, "dem.youngs_modulus",
                         "required key is missing"));
  EXPECT_TRUE(fails_with(scene_text("normal_model = \"hooke\"\n"), 6, "dem.normal_model",
                         "expected one of \"linear\", \"hertz\", got \"hooke\""));
  EXPECT_TRUE(fails_with(
      scene_text(kDemKeys + "friction_model = \"viscous\"\ntangential_damping = 1\nfriction = 0.3\n"), 9,
      "dem.friction", "does not apply to friction_model \"viscous\""));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "friction_model = \"viscous\"\n"), 5, "dem.tangential_damping",
                         "required key is missing"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "wall_restitution = 0.5\n"), 7, "dem.wall_restitution",
                         "does not apply to wall_model \"contact\""));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "frictoin = 0.3\n"), 7, "dem.frictoin",
                         "unknown key (did you mean 'friction'?)"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "time_step = 1e-4\ncollision_time_fraction = 0.1\n"), 8,
                         "dem.collision_time_fraction", "at most one of 'time_step' [s]"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "collision_time_fraction = 0.7\n"), 7,
                         "dem.collision_time_fraction", "expected a number in (0, 0.5], got 0.7"));
  // The collision time of two 5 cm grains at k = 1000 N/m is 0.0896 s; (2/pi) of it is 0.057 s.
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "time_step = 0.06\n"), 7, "dem.time_step",
                         "expected a time step below (2/pi) x the collision time"));
}

TEST(DemSceneLoader, MindlinKeysTakeTheirDefaultsAndAreChecked) {
  const Scene scene = parse_scene(scene_text(kDemKeys + "friction_model = \"mindlin\"\n"), "t.toml");
  EXPECT_EQ(scene.dem.friction_model, FrictionModel::mindlin);
  EXPECT_TRUE(scene.dem.rotation) << "grains rotate by default with a tangential spring";
  EXPECT_FLOAT_EQ(scene.dem.tangential_stiffness_ratio, 2.0f / 7.0f);
  EXPECT_EQ(scene.dem.contact_slots, 16);
  const DemSetup setup = build_dem_setup(scene);
  EXPECT_EQ(setup.params.contact_slots, 16u);
  EXPECT_EQ(setup.params.fixed_partner_base, std::uint32_t(setup.grains.size()));
  EXPECT_FALSE(parse_scene(scene_text(), "t.toml").dem.rotation) << "no rotation by default otherwise";
  // Hertz: G* = G / (2 (2 - nu)), G = E / (2 (1 + nu)).
  const DemSetup hertz =
      build_dem_setup(parse_scene(scene_text("normal_model = \"hertz\"\nyoungs_modulus = 1e7\npoisson_ratio "
                                             "= 0.25\nfriction_model = \"mindlin\"\n"),
                                  "t.toml"));
  EXPECT_NEAR(hertz.params.effective_shear_modulus, 1e7 / 2.5 / 3.5, 1.0);

  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "tangential_stiffness_ratio = 0.3\n"), 7,
                         "dem.tangential_stiffness_ratio", "only \"mindlin\" keeps a tangential spring"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "contact_slots = 8\n"), 7, "dem.contact_slots",
                         "only \"mindlin\" keeps a tangential spring"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "friction_model = \"mindlin\"\ncontact_slots = 0\n"), 8,
                         "dem.contact_slots", "expected an integer in [1, 64], got 0"));
  EXPECT_TRUE(
      fails_with(scene_text(kDemKeys + "friction_model = \"mindlin\"\ntangential_stiffness_ratio = 0\n"), 8,
                 "dem.tangential_stiffness_ratio", "expected a number in (0, 10], got 0"));
  EXPECT_TRUE(
      fails_with(scene_text("normal_model = \"hertz\"\nyoungs_modulus = 1e7\nfriction_model = \"mindlin\"\n"
                            "tangential_stiffness_ratio = 0.3\n"),
                 9, "dem.tangential_stiffness_ratio", "does not apply to normal_model \"hertz\""));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "rolling_friction = 0.1\n"), 7, "dem.rolling_friction",
                         "needs rotation = true"));
  EXPECT_TRUE(fails_with(
      scene_text(kDemKeys + "friction_model = \"mindlin\"\nrotation = false\nrolling_friction = 0.1\n"), 9,
      "dem.rolling_friction", "needs rotation = true"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "rolling_friction = 1.5\nrotation = true\n"), 7,
                         "dem.rolling_friction", "expected a number in [0, 1], got 1.5"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "rotation = 1\n"), 7, "dem.rotation", "expected"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys + "friction_model = \"history\"\n"), 7, "dem.friction_model",
                         "expected one of \"coulomb\", \"viscous\", \"mindlin\""));
}

TEST(DemSceneLoader, GrainBlockKeysAreChecked) {
  const std::string no_radius =
      kHead + kDemKeys + "[[dem.block]]\nshape = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\ndensity = 1\n";
  EXPECT_TRUE(fails_with(no_radius, 7, "dem.block[0].grain_radius", "required key is missing"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys, "mass = 0.1\n"), 13, "dem.block[0].mass",
                         "exactly one of 'density' [kg/m^3] and 'mass' [kg]"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys, "grain_radius_max = 0.04\n"), 13,
                         "dem.block[0].grain_radius_max",
                         "expected a radius >= grain_radius 0.05 [m], got 0.04"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys, "fixed = true\n"), 12, "dem.block[0].density",
                         "does not apply to fixed grains"));
  EXPECT_TRUE(
      fails_with(scene_text(kDemKeys, "fixed = 1\n"), 13, "dem.block[0].fixed", "expected true or false"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys, "count = 10\n"), 13, "dem.block[0].count",
                         "does not apply to a \"box\" block (it takes min, max)"));
  EXPECT_TRUE(fails_with(scene_text(kDemKeys, "jitter = 0.9\n"), 13, "dem.block[0].jitter",
                         "expected a number in [0, 0.5], got 0.9"));
  const std::string outside = kHead + kDemKeys +
                              "[[dem.block]]\nshape = \"sphere\"\ncenter = [0.5, 0.5, 0.9]\nradius = 0.2\n"
                              "grain_radius = 0.01\ndensity = 1\n";
  EXPECT_TRUE(fails_with(outside, 7, "dem.block[0]", "block is not inside the domain: its z extent"));
  const std::string neither =
      kHead + kDemKeys +
      "[[dem.block]]\nshape = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 1]\ngrain_radius = 0.1\n";
  EXPECT_TRUE(fails_with(neither, 7, "dem.block[0]", "needs one of 'density' [kg/m^3] and 'mass' [kg]"));
  // A lattice of 1000 grains of 10 cm is 10 a side: 2 m, beyond the 1 m domain.
  const std::string lattice = kHead + kDemKeys +
                              "[[dem.block]]\nshape = \"lattice\"\nmin = [0, 0, 0]\ncount = 1000\n"
                              "grain_radius = 0.1\nmass = 1\n";
  EXPECT_TRUE(fails_with(lattice, 7, "dem.block[0]", "a lattice of 1000 grains (10 a side) reaches"));
  const std::string all_fixed = kHead + kDemKeys +
                                "[[dem.block]]\nshape = \"box\"\nmin = [0, 0, 0]\nmax = [1, 1, 0.1]\n"
                                "grain_radius = 0.05\nfixed = true\n";
  EXPECT_TRUE(fails_with(all_fixed, 7, "dem.block", "expected at least one block of moving grains"));
}

}  // namespace
}  // namespace surge
