// [[solid]] obstacles (sim/scene/read_solids.cpp, sim/setup/build_fluid_setup.cpp): every shape reads and
// places; each mistake names its line, key and problem; setup leaves no fluid inside a solid and shells
// its surface with boundary particles; and a tank with a sphere in it settles at rest with the fluid
// outside the sphere and the hydrostatic pressure under it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/geometry/mesh_import.h"
#include "sim/io/time_schedule.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/gauge.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

// Scenes parsed as if they stood in scenes/, so a mesh path is relative to that folder.
const std::string kSceneFile = SURGE_SOURCE_DIR "/scenes/solid_test.toml";

std::string tank(const std::string& solids) {
  return R"(name = "solids"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.4, 0.4, 0.4]
[resolution]
spacing = 0.02
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.4, 0.4, 0.3]
)" + solids;
}

const char* kSphere = R"(
[[solid]]
shape = "sphere"
center = [0.2, 0.2, 0.15]
radius = 0.06
)";

const char* kBox = R"(
[[solid]]
shape = "box"
min = [0.05, 0.05, 0.0]
max = [0.13, 0.11, 0.09]
)";

const char* kCylinder = R"(
[[solid]]
shape = "cylinder"
center = [0.3, 0.3, 0.1]
radius = 0.04
height = 0.12
rotation = [90, 0, 0]
)";

const char* kMesh = R"(
[[solid]]
shape = "mesh"
file = "../assets/meshes/unit_cube.obj"
scale = 0.08
center = [0.3, 0.1, 0.2]
rotation = [0, 0, 45]
)";

TEST(Solids, EveryShapeReadsAndPlaces) {
  const bool meshes = mesh_import_available();
  const Scene scene =
      parse_scene(tank(std::string(kSphere) + kBox + kCylinder + (meshes ? kMesh : "")), kSceneFile);
  ASSERT_EQ(scene.solids.size(), meshes ? 4u : 3u);
  EXPECT_EQ(scene.solids[0].shape, "sphere");
  EXPECT_EQ(scene.solids[0].line, 12);
  EXPECT_TRUE(scene.solids[0].solid->contains({0.2, 0.2, 0.2}));
  EXPECT_FALSE(scene.solids[0].solid->contains({0.2, 0.2, 0.22}));
  EXPECT_TRUE(scene.solids[1].solid->contains({0.129, 0.109, 0.001}));
  EXPECT_FALSE(scene.solids[1].solid->contains({0.131, 0.1, 0.05}));
  // The cylinder's axis, z in its own frame, turned 90 degrees about x: along -y.
  EXPECT_TRUE(scene.solids[2].solid->contains({0.3, 0.3 + 0.059, 0.1}));
  EXPECT_FALSE(scene.solids[2].solid->contains({0.3, 0.3, 0.1 + 0.059}));
  EXPECT_EQ(scene.solids[0].layers, scene.wall_layers);
  if (!meshes) GTEST_SKIP() << "this build has no mesh import (assimp); the mesh solid was not read";
  // A cube of side 0.08 turned 45 degrees about z: its corner reaches 0.04 sqrt(2) along x.
  EXPECT_TRUE(scene.solids[3].solid->contains({0.3 + 0.055, 0.1, 0.2}));
  EXPECT_FALSE(scene.solids[3].solid->contains({0.3 + 0.058, 0.1, 0.2}));
  EXPECT_FALSE(scene.solids[3].solid->contains({0.3 + 0.035, 0.1 + 0.035, 0.2}));
}

struct BadSolid {
  std::string block;
  int line;
  std::string key;
  std::string problem;
};

TEST(Solids, EachMistakeNamesItsLineKeyAndProblem) {
  std::vector<BadSolid> cases = {
      {"[[solid]]\nshape = \"cone\"\n", 12, "solid[0].shape", "expected one of"},
      {"[[solid]]\nshape = \"box\"\nmin = [0.1, 0.1, 0.1]\nmax = [0.2, 0.05, 0.2]\n", 14, "solid[0].max",
       "greater than min's"},
      {"[[solid]]\nshape = \"box\"\ncenter = [0.2, 0.2, 0.2]\nradius = 0.1\n", 14, "solid[0].radius",
       "does not apply to a \"box\" solid"},
      {"[[solid]]\nshape = \"sphere\"\ncenter = [0.38, 0.2, 0.2]\nradius = 0.05\n", 11, "solid[0]",
       "not inside the domain: its x extent"},
      {"[[solid]]\nshape = \"sphere\"\ncenter = [0.2, 0.2, 0.2]\n", 11, "solid[0].radius", "required key"},
      {"[[solid]]\nshape = \"mesh\"\nfile = \"no_such_mesh.obj\"\n", 13, "solid[0].file", "no_such_mesh.obj"},
      {"[[solid]]\nshape = \"sphere\"\ncenter = [0.2, 0.2, 0.2]\nradius = 0.05\nlayers = 0\n", 15,
       "solid[0].layers", "[1, 8]"},
  };
  if (mesh_import_available()) {
    cases.push_back({"[[solid]]\nshape = \"mesh\"\nfile = \"../tests/sim/data/meshes/open_box.obj\"\n", 13,
                     "solid[0].file", "not closed"});
    cases.push_back({"[[solid]]\nshape = \"mesh\"\nfile = \"../tests/sim/data/meshes/nan_vertex.obj\"\n", 13,
                     "solid[0].file", "vertex"});
    cases.push_back(
        {"[[solid]]\nshape = \"mesh\"\nfile = \"../tests/sim/data/meshes/degenerate_triangle.obj\"\n", 13,
         "solid[0].file", "degenerate"});
    cases.push_back(
        {"[[solid]]\nshape = \"mesh\"\nfile = \"../assets/meshes/unit_cube.obj\"\nscale = 0.5\n"
         "center = [0.2, 0.2, 0.39]\n",
         11, "solid[0]", "not inside the domain: its x extent"});
  } else {
    cases.push_back({"[[solid]]\nshape = \"mesh\"\nfile = \"../assets/meshes/unit_cube.obj\"\n", 13,
                     "solid[0].file", "libassimp-dev"});
  }
  for (const BadSolid& bad : cases) {
    SCOPED_TRACE(bad.block);
    try {
      parse_scene(tank(bad.block), kSceneFile);
      ADD_FAILURE() << "accepted";
    } catch (const SceneError& error) {
      EXPECT_EQ(error.line(), bad.line) << error.what();
      EXPECT_EQ(error.key(), bad.key) << error.what();
      EXPECT_NE(std::string(error.what()).find(bad.problem), std::string::npos) << error.what();
    }
  }
  // Grains and bodies take no solids.
  try {
    parse_scene(
        "name = \"g\"\nsolver = \"dem\"\n[domain]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n[dem]\nstiffness = "
        "1000\n[[dem.block]]\nshape = \"box\"\nmin = [0, 0, 0]\nmax = [0.5, 0.5, 0.5]\ngrain_radius = "
        "0.05\ndensity = 1000\n" +
            std::string(kSphere),
        kSceneFile);
    ADD_FAILURE() << "a DEM scene took a solid";
  } catch (const SceneError& error) {
    EXPECT_EQ(error.key(), "solid") << error.what();
  }
}

TEST(Solids, SetupLeavesNoFluidInsideAndShellsEverySurface) {
  const Scene plain = parse_scene(tank(""), kSceneFile);
  const Scene scene = parse_scene(tank(std::string(kSphere) + kBox + kCylinder), kSceneFile);
  const SphSetup without = build_setup(plain);
  const SphSetup with = build_setup(scene);
  const double spacing = with.params.spacing;
  for (const Vec4f& x : with.fluid.position)
    for (const SolidSettings& solid : scene.solids)
      ASSERT_FALSE(solid.solid->contains({x.x, x.y, x.z}))
          << "fluid at " << x.x << ", " << x.y << ", " << x.z;
  // Every boundary particle beyond the walls is in a solid's shell, layers spacings deep.
  std::size_t in_shells = 0;
  for (const Vec4f& b : with.boundary) {
    const Vec3d x{b.x, b.y, b.z};
    if (b.x < 0 || b.y < 0 || b.z < 0 || b.x > 0.4f || b.y > 0.4f || b.z > 0.4f) continue;
    ++in_shells;
    bool in_one = false;
    for (const SolidSettings& solid : scene.solids) {
      const double d = solid.solid->signed_distance(x);
      in_one = in_one || (d <= 1e-6 && d >= -solid.layers * spacing - 1e-6);
    }
    EXPECT_TRUE(in_one) << "boundary particle at " << b.x << ", " << b.y << ", " << b.z;
    EXPECT_GT(b.w, 0.0f);
  }
  EXPECT_EQ(with.boundary.size() - without.boundary.size(), in_shells);
  // The fluid the solids displace: about their volume below the water line (the sphere and the cylinder
  // under 0.3 m, the box on the floor), to the lattice's staircase at 0.02 m.
  const double displaced = double(without.fluid.size() - with.fluid.size()) * spacing * spacing * spacing;
  const double volume = scene.solids[0].solid->mass_properties(1).volume +
                        scene.solids[1].solid->mass_properties(1).volume +
                        scene.solids[2].solid->mass_properties(1).volume;
  std::printf("displaced %.6f m^3 for solids of %.6f m^3; %zu boundary particles in the shells\n", displaced,
              volume, in_shells);
  EXPECT_NEAR(displaced / volume, 1.0, 0.15);
}

// A tank 0.12 m deep with a sphere of radius 0.03 m hanging in it, its bottom 0.04 m above the floor. After
// the release's ringing (0.2 s) and for 0.2 s more, at every millisecond: no fluid particle is inside the
// sphere (each particle's distance from the centre is at least the radius), and pressure gauges on the floor
// under the sphere, halfway between the floor and the sphere, and on the sphere's bottom read rho0 g d, d the
// gauge's depth below the free surface that a level gauge beside the sphere reads: the sphere displaces water
// but does not change the hydrostatic pressure below it.
struct SphereTankReading {
  double floor = 0, between = 0, bottom = 0;  // the gauges' mean pressures [Pa]
  double surface = 0;                         // the level gauge's mean [m]
  double closest = 1e30;  // the smallest distance of a fluid particle from the sphere's centre [m]
  long samples = 0;
};

void check_sphere_tank(bool continuity) {
  const std::string text = R"(name = "sphere_tank"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.12, 0.12, 0.2]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.01
[fluid]
viscosity_alpha = 0.1
continuity_density = )" + std::string(continuity ? "true" : "false") +
                           R"(
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.12, 0.12, 0.12]
[[solid]]
shape = "sphere"
center = [0.06, 0.06, 0.07]
radius = 0.03
)";
  const Scene scene = parse_scene(text, kSceneFile);
  const SphSetup setup = build_setup(scene);
  auto sim = make_cpu_simulation(setup);
  const Vec3f centre{0.06f, 0.06f, 0.07f};
  const float radius = 0.03f;
  std::vector<GaugeDefinition> gauges(4);
  for (GaugeDefinition& gauge : gauges) gauge.kind = GaugeKind::pressure;
  gauges[0].position = {0.06f, 0.06f, 0.0f};   // the floor under the sphere
  gauges[1].position = {0.06f, 0.06f, 0.02f};  // halfway up to the sphere
  gauges[2].position = {0.06f, 0.06f, 0.04f};  // the sphere's bottom
  gauges[3].kind = GaugeKind::level;           // beside the sphere, out of the walls' and its reach
  gauges[3].position = {0.03f, 0.03f, 0.0f};
  gauges[3].z_top = 0.2f;
  EXPECT_TRUE(sim->set_gauges(gauge_probes(gauges)));
  TimeSchedule schedule(0.001, 1);
  std::vector<float> values;
  ParticleFrame frame;
  SphereTankReading reading;
  while (sim->status().time_s < 0.4) {
    sim->step();
    const StepStatus status = sim->status();
    EXPECT_EQ(status.instability, Instability::none) << status.diagnosis();
    if (status.instability != Instability::none) break;
    if (!schedule.take(status.time_s) || status.time_s < 0.2) continue;
    sim->sample_gauges(values);
    reading.floor += values[0];
    reading.between += values[1];
    reading.bottom += values[2];
    reading.surface += values[3];
    ++reading.samples;
    sim->download(frame);
    for (const Vec4f& x : frame.position)
      reading.closest = std::min(reading.closest, std::sqrt(double(length_squared(xyz(x) - centre))));
  }
  EXPECT_GT(reading.samples, 150);
  for (double* mean : {&reading.floor, &reading.between, &reading.bottom, &reading.surface})
    *mean /= double(reading.samples);
  const double rho0_g = setup.params.rest_density * 9.81;
  std::printf(
      "%s: free surface %.4f m; floor %.1f Pa (rho0 g d %+.2f %%), halfway %.1f Pa (%+.2f %%), sphere bottom "
      "%.1f Pa (%+.2f %%); closest fluid particle %.4f m from the centre (radius %.2f m) over %ld samples\n",
      continuity ? "continuity density, delta = 0.1" : "summation density", reading.surface, reading.floor,
      100 * (reading.floor / (rho0_g * reading.surface) - 1), reading.between,
      100 * (reading.between / (rho0_g * (reading.surface - 0.02)) - 1), reading.bottom,
      100 * (reading.bottom / (rho0_g * (reading.surface - 0.04)) - 1), reading.closest, double(radius),
      reading.samples);
  EXPECT_GE(reading.closest, double(radius)) << "a fluid particle inside the sphere";
  EXPECT_NEAR(reading.floor / (rho0_g * reading.surface), 1.0, 0.03);
  EXPECT_NEAR(reading.between / (rho0_g * (reading.surface - 0.02)), 1.0, 0.03);
  EXPECT_NEAR(reading.bottom / (rho0_g * (reading.surface - 0.04)), 1.0, 0.03);
}

TEST(Solids, HydrostaticTankWithASphereKeepsTheFluidOutAndRhoGDUnderIt) {
  check_sphere_tank(false);
}

// The same with continuity density and delta-SPH diffusion, the setting for wall pressure (docs/scenes.md).
TEST(Solids, ContinuityTankWithASphereKeepsTheFluidOutAndRhoGDUnderIt) {
  check_sphere_tank(true);
}

}  // namespace
}  // namespace surge
