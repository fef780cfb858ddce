// Scenes with solver = "nbody": the shipped ones load with the values their comments promise and place the
// bodies they describe; --particles shares a new total among the resizable systems; every kind of mistake
// in [nbody] is reported at its line and key.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "sim/nbody/body_generators.h"
#include "sim/nbody/nbody_setup.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_nbody_setup.h"

namespace surge {
namespace {

const std::filesystem::path kScenes = std::filesystem::path(SURGE_SOURCE_DIR) / "scenes";

// A valid n-body scene of exactly 7 lines: tests append to it, so their first line is line 8.
const std::string kMinimal = R"(solver = "nbody"
[nbody]
dt = 0.01
[[nbody.system]]
model = "plummer"
bodies = 100
[time]
)";

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
    return testing::AssertionFailure() << "got: " << what;
  }
  return testing::AssertionFailure() << "no SceneError thrown";
}

TEST(NbodySceneFiles, KeplerIsTwoBodiesOnAnEllipse) {
  const Scene scene = load_scene(kScenes / "kepler.toml");
  EXPECT_EQ(scene.solver, SolverKind::nbody);
  ASSERT_EQ(scene.nbody.systems.size(), 1u);
  const BodySystem& system = scene.nbody.systems[0];
  EXPECT_EQ(system.model, BodySystem::Model::two_body);
  EXPECT_DOUBLE_EQ(system.eccentricity, 0.5);
  EXPECT_EQ(scene.nbody.parameters.softening, 0.0);
  const double period = kepler_period(system, scene.nbody.parameters.gravitational_constant);
  EXPECT_NEAR(scene.nbody.parameters.dt, period / 20000, 1e-9) << "the step the energy test uses";
  EXPECT_NEAR(scene.end_time, 10 * period, 1e-3) << "ten orbits";
  const NbodySetup setup = build_nbody_setup(scene);
  ASSERT_EQ(setup.size(), 2u);
  // Apocentre: separation a (1 + e) = 1.5, centre of mass at rest at the origin.
  EXPECT_NEAR(setup.bodies[1].x.x - setup.bodies[0].x.x, 1.5, 1e-6);
  EXPECT_NEAR(setup.bodies[0].x.x * setup.bodies[0].m + setup.bodies[1].x.x * setup.bodies[1].m, 0.0, 1e-12);
}

TEST(NbodySceneFiles, PlummerIsInHenonUnits) {
  const Scene scene = load_scene(kScenes / "plummer.toml");
  EXPECT_EQ(scene.nbody.parameters.method, NbodyMethod::all_pairs);
  ASSERT_EQ(scene.nbody.systems.size(), 1u);
  EXPECT_NEAR(scene.nbody.systems[0].scale_radius, 3 * M_PI / 16, 1e-6);
  const NbodySetup setup = build_nbody_setup(scene, 4000);
  EXPECT_EQ(setup.size(), 4000u) << "--particles replaces the body count";
  double mass = 0;
  for (const auto& b : setup.bodies) mass += b.m;
  EXPECT_NEAR(mass, 1.0, 1e-12);
}

TEST(NbodySceneFiles, GalaxiesAreTwoDiscsApproaching) {
  const Scene scene = load_scene(kScenes / "galaxies.toml");
  EXPECT_EQ(scene.nbody.parameters.method, NbodyMethod::barnes_hut);
  ASSERT_EQ(scene.nbody.systems.size(), 2u);
  for (const BodySystem& s : scene.nbody.systems) EXPECT_EQ(s.model, BodySystem::Model::disc_galaxy);
  EXPECT_LT(scene.nbody.systems[0].velocity.x * scene.nbody.systems[1].velocity.x, 0.0)
      << "head towards each other";
  // --particles 10,000 is shared in the scene's proportions (1:1), the central masses included.
  const NbodySetup setup = build_nbody_setup(scene, 10000);
  EXPECT_EQ(setup.size(), 10000u);
  // Each disc sits at its centre with its velocity (centre-of-mass frame of each system).
  Vec3d com{}, momentum{};
  double mass = 0;
  for (std::size_t i = 0; i < 5000; ++i) {
    com += setup.bodies[i].x * setup.bodies[i].m;
    momentum += setup.velocities[i] * setup.bodies[i].m;
    mass += setup.bodies[i].m;
  }
  EXPECT_NEAR(com.x / mass, -6.0, 1e-9);
  EXPECT_NEAR(momentum.x / mass, 0.3, 1e-6);
  EXPECT_NEAR(mass, 1.5, 1e-9) << "disc 1 + central mass 0.5";
}

TEST(NbodySceneParse, DefaultsApply) {
  const Scene scene = parse_scene(kMinimal, "t.toml");
  const NbodyParameters& p = scene.nbody.parameters;
  EXPECT_EQ(p.method, NbodyMethod::all_pairs);
  EXPECT_EQ(p.gravitational_constant, 1.0);
  EXPECT_NEAR(p.softening, 0.01, 1e-9);
  EXPECT_NEAR(p.theta, 0.5, 1e-9);
  EXPECT_EQ(scene.nbody.seed, 1u);
  EXPECT_EQ(scene.nbody.systems[0].bodies, 100);
  EXPECT_EQ(scene.nbody.systems[0].line, 4);
}

TEST(NbodySceneParse, SameSeedSameBodies) {
  const Scene scene = parse_scene(kMinimal, "t.toml");
  const NbodySetup a = build_nbody_setup(scene), b = build_nbody_setup(scene);
  ASSERT_EQ(a.size(), 100u);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.bodies[i].x.x, b.bodies[i].x.x);
}

TEST(NbodySceneErrors, StepIsRequired) {
  EXPECT_TRUE(fails_with("solver = \"nbody\"\n[nbody]\n[[nbody.system]]\nmodel = \"plummer\"\nbodies = 1\n",
                         2, "nbody.dt", "required key is missing"));
}

TEST(NbodySceneErrors, UnknownMethod) {
  EXPECT_TRUE(fails_with(R"(solver = "nbody"
[nbody]
dt = 0.01
method = "fmm"
)",
                         4, "nbody.method",
                         "expected one of \"all_pairs\", \"all_pairs_naive\", \"barnes_hut\""));
}

TEST(NbodySceneErrors, ThetaOutOfRange) {
  EXPECT_TRUE(fails_with("solver = \"nbody\"\n[nbody]\ndt = 0.01\ntheta = 1.5\n", 4, "nbody.theta",
                         "expected a number in (0, 1], got 1.5"));
}

TEST(NbodySceneErrors, NegativeSoftening) {
  EXPECT_TRUE(fails_with("solver = \"nbody\"\n[nbody]\ndt = 0.01\nsoftening = -1\n", 4, "nbody.softening",
                         "expected a number >= 0"));
}

TEST(NbodySceneErrors, AtLeastOneSystem) {
  EXPECT_TRUE(fails_with("solver = \"nbody\"\n[nbody]\ndt = 0.01\n", 2, "nbody.system", "at least one"));
}

TEST(NbodySceneErrors, KeyOfAnotherModel) {
  EXPECT_TRUE(fails_with(kMinimal + "end = 1\n[[nbody.system]]\nmodel = \"two_body\"\nbodies = 5\n", 11,
                         "nbody.system[1].bodies", "does not apply to a \"two_body\" system"));
}

TEST(NbodySceneErrors, EccentricityMustBeBelowOne) {
  EXPECT_TRUE(fails_with(kMinimal + "end = 1\n[[nbody.system]]\nmodel = \"two_body\"\neccentricity = 1.0\n",
                         11, "nbody.system[1].eccentricity", "expected a number in [0, 1)"));
}

TEST(NbodySceneErrors, MassesAreTwoPositiveNumbers) {
  EXPECT_TRUE(fails_with(kMinimal + "end = 1\n[[nbody.system]]\nmodel = \"two_body\"\nmasses = [1.0]\n", 11,
                         "nbody.system[1].masses", "expected an array of 2 numbers > 0"));
  EXPECT_TRUE(fails_with(kMinimal + "end = 1\n[[nbody.system]]\nmodel = \"two_body\"\nmasses = [1.0, -2]\n",
                         11, "nbody.system[1].masses", "got -2"));
}

TEST(NbodySceneErrors, ZeroNormal) {
  EXPECT_TRUE(fails_with(
      kMinimal + "end = 1\n[[nbody.system]]\nmodel = \"disc_galaxy\"\nbodies = 10\nnormal = [0, 0, 0]\n", 12,
      "nbody.system[1].normal", "non-zero direction"));
}

TEST(NbodySceneErrors, FluidTablesDoNotApply) {
  EXPECT_TRUE(fails_with(kMinimal + "end = 1\n[domain]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n", 9, "domain",
                         "does not apply to solver \"nbody\""));
}

TEST(NbodySceneErrors, AdaptiveStepKeysDoNotApply) {
  EXPECT_TRUE(fails_with(kMinimal + "cfl = 0.3\n", 8, "time.cfl", "its fixed step is nbody.dt"));
}

TEST(NbodySceneErrors, NbodyTableNeedsTheSolver) {
  EXPECT_TRUE(fails_with("[nbody]\ndt = 0.01\n", 1, "nbody", "applies to solver = \"nbody\" only"));
}

TEST(NbodySceneErrors, ParticlesCannotResizeTwoBodySystems) {
  const Scene scene = load_scene(kScenes / "kepler.toml");
  try {
    build_nbody_setup(scene, 1000);
    FAIL() << "no SceneError thrown";
  } catch (const SceneError& error) {
    EXPECT_NE(std::string(error.what()).find("--particles cannot apply"), std::string::npos) << error.what();
    EXPECT_GT(error.line(), 0);
  }
}

}  // namespace
}  // namespace surge
