// Bounded setup (sim/setup/): the fluid lattice visits only the blocks' sites, in the order a scan of the
// whole domain gives, and a scene or --particles count that cannot fit is refused before anything is
// allocated, at the key (or option) to change, with the count that would fit.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/setup/build_nbody_setup.h"
#include "sim/setup/host_memory.h"

namespace surge {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string tank(const std::string& domain_max, const std::string& resolution, const std::string& blocks,
                 const std::string& extra = "") {
  return "[domain]\nmin = [0, 0, 0]\nmax = " + domain_max + "\n" + extra + "[resolution]\n" + resolution +
         "\n" + blocks;
}

std::string box(const std::string& min, const std::string& max) {
  return "[[fluid.block]]\nshape = \"box\"\nmin = " + min + "\nmax = " + max + "\n";
}

// What build_setup threw, or "" if it did not.
std::string refusal(const Scene& scene, long particles = 0, double run_bytes = 0) {
  try {
    build_setup(scene, particles, run_bytes);
  } catch (const SceneError& error) {
    return error.what();
  }
  return "";
}

testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << part << "' not in: " << text;
}

// The fluid sites as the setup placed them before it was bounded: the whole domain's lattice, z then y
// then x, each site given to the first block that holds it.
std::vector<Vec3f> whole_domain_scan(const Scene& scene) {
  const double spacing = scene.spacing;
  const Vec3f extent = scene.domain_max - scene.domain_min;
  const long nx = long(extent.x / spacing), ny = long(extent.y / spacing), nz = long(extent.z / spacing);
  std::vector<Vec3f> sites;
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const Vec3f p{float(scene.domain_min.x + (i + 0.5) * spacing),
                      float(scene.domain_min.y + (j + 0.5) * spacing),
                      float(scene.domain_min.z + (k + 0.5) * spacing)};
        for (const FluidBlock& b : scene.blocks) {
          const bool inside = b.shape == FluidBlock::Shape::sphere
                                  ? length_squared(p - b.center) <= b.radius * b.radius
                                  : p.x >= b.min.x && p.x < b.max.x && p.y >= b.min.y && p.y < b.max.y &&
                                        p.z >= b.min.z && p.z < b.max.z;
          if (inside) {
            sites.push_back(p);
            break;
          }
        }
      }
  return sites;
}

TEST(BoundedLattice, PlacesTheSameParticlesInTheSameOrderAsAWholeDomainScan) {
  // Overlapping boxes, a sphere across one of them, a block against the far walls and one off the lattice.
  const Scene scene = parse_scene(
      tank("[1.0, 0.6, 0.8]", "spacing = 0.02",
           box("[0.0, 0.0, 0.0]", "[0.3, 0.2, 0.4]") + box("[0.2, 0.1, 0.1]", "[0.5, 0.3, 0.3]") +
               box("[0.71, 0.43, 0.57]", "[1.0, 0.6, 0.8]") +
               box("[0.613, 0.017, 0.311]", "[0.687, 0.093, 0.389]") +
               "[[fluid.block]]\nshape = \"sphere\"\ncenter = [0.35, 0.35, 0.45]\nradius = 0.17\n"),
      "t.toml");
  const SphSetup setup = build_setup(scene);
  const std::vector<Vec3f> expected = whole_domain_scan(scene);
  ASSERT_EQ(setup.fluid.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(xyz(setup.fluid.position[i]).x, expected[i].x) << i;
    ASSERT_EQ(xyz(setup.fluid.position[i]).y, expected[i].y) << i;
    ASSERT_EQ(xyz(setup.fluid.position[i]).z, expected[i].z) << i;
    ASSERT_EQ(setup.fluid.id[i], std::uint32_t(i));
  }
}

TEST(BoundedLattice, ASmallBlockInAHugeDomainExaminesOnlyItsOwnSites) {
  // A 1 cm block at 1 mm in a 1 km domain: 10^18 domain sites, which a scan of the domain would never
  // finish; the block's bounding box with two sites of slack either side (rounding) is 14^3.
  const Scene scene = parse_scene(tank("[1000.0, 1000.0, 1000.0]", "spacing = 0.001",
                                       box("[500.0, 500.0, 500.0]", "[500.01, 500.01, 500.01]")),
                                  "t.toml");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_LE(fluid_sites_examined(scene, 0.001), 14 * 14 * 14);
  EXPECT_LT(seconds_since(start), 0.5);
  // Two blocks far apart: their boxes, not the box around both.
  const Scene apart = parse_scene(tank("[1000.0, 1000.0, 1000.0]", "spacing = 0.001",
                                       box("[0.0, 0.0, 0.0]", "[0.01, 0.01, 0.01]") +
                                           box("[999.99, 999.99, 999.99]", "[1000.0, 1000.0, 1000.0]")),
                                  "t.toml");
  EXPECT_LE(fluid_sites_examined(apart, 0.001), 2 * 14 * 14 * 14);
}

TEST(BoundedLattice, ASmallBlockInALargeOpenDomainSetsUpItsParticlesOnly) {
  // 1.6e9 domain sites at 1 mm; no walls and a wide kernel keep the rest of the setup small.
  const Scene scene = parse_scene(tank("[4.0, 4.0, 0.1]", "spacing = 0.001\nsupport_ratio = 4.0",
                                       box("[2.0, 2.0, 0.05]", "[2.01, 2.01, 0.06]"), "walls = []\n"),
                                  "t.toml");
  const SphSetup setup = build_setup(scene);
  EXPECT_EQ(setup.fluid.size(), 1000u);
  EXPECT_TRUE(setup.boundary.empty());
}

TEST(SetupLimits, ALatticeBeyondTheParticleLimitIsRefusedAtOnce) {
  const Scene scene = parse_scene(
      tank("[1.0, 1.0, 1.0]", "spacing = 0.0001", box("[0.0, 0.0, 0.0]", "[1.0, 1.0, 1.0]")), "t.toml");
  const auto start = std::chrono::steady_clock::now();
  const std::string message = refusal(scene);
  EXPECT_LT(seconds_since(start), 0.5);
  EXPECT_TRUE(contains(message,
                       "t.toml:5: key 'resolution.spacing': about 1e12 fluid particles at a spacing "
                       "of 0.0001 m: expected at most 2e9 (a spacing of at least 0.000793701 m)"));
}

TEST(SetupLimits, ASmallBlockInAHugeDomainIsRefusedForItsGridAtOnce) {
  // The case: a 5 cm block at 1 mm in a 100 m domain, which never finished.
  const Scene scene = parse_scene(
      tank("[100.0, 100.0, 100.0]", "spacing = 0.001", box("[0.0, 0.0, 0.0]", "[0.05, 0.05, 0.05]")),
      "t.toml");
  const auto start = std::chrono::steady_clock::now();
  const std::string message = refusal(scene);
  EXPECT_LT(seconds_since(start), 0.5);
  EXPECT_TRUE(contains(message,
                       "t.toml:5: key 'resolution.spacing': the 100 x 100 x 100 m domain in grid cells "
                       "of one kernel support (0.002 m) is about 1.3e14 cells: expected fewer than 4e9"));
}

TEST(SetupLimits, ParticlesBeyondTheLimitAreRefusedAtTheOption) {
  const Scene scene = parse_scene(
      tank("[1.0, 1.0, 1.0]", "spacing = 0.1", box("[0.0, 0.0, 0.0]", "[0.5, 0.5, 0.5]")), "t.toml");
  EXPECT_TRUE(contains(refusal(scene, 3'000'000'000L),
                       "t.toml: option '--particles': expected at most 2e9 particles, got 3e9"));
}

// A process whose data size is limited (ulimit -d), as a container's memory limit would: the setup's own
// need is compared with it before anything is allocated.
class LimitedMemory : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(getrlimit(RLIMIT_DATA, &saved_), 0);
    rlimit limit = saved_;
    limit.rlim_cur = rlim_t(512) << 20;
    ASSERT_EQ(setrlimit(RLIMIT_DATA, &limit), 0);
  }
  void TearDown() override { setrlimit(RLIMIT_DATA, &saved_); }
  rlimit saved_{};
};

TEST_F(LimitedMemory, TheLimitIsWhatSetupCompares) {
  const HostMemory memory = usable_host_memory();
  EXPECT_EQ(memory.bytes, double(512 << 20));
  EXPECT_EQ(memory.source, "the data size limit (ulimit -d)");
}

TEST_F(LimitedMemory, AFluidThatCannotFitIsRefusedWithTheCountThatWould) {
  // 2e7 fluid particles at 44 bytes (the setup) and 128 bytes (a CPU run's state) each: 3.2 GiB.
  const Scene scene = parse_scene(
      tank("[1.0, 1.0, 1.0]", "particles = 20000000", box("[0.0, 0.0, 0.0]", "[0.5, 1.0, 1.0]")), "t.toml");
  const std::string message = refusal(scene, 0, kCpuRunBytesPerFluidParticle);
  EXPECT_TRUE(
      contains(message, "t.toml:5: key 'resolution.particles': about 2e7 fluid particles need at least "));
  EXPECT_TRUE(contains(message,
                       "and the CPU's simulation state); the data size limit (ulimit -d) allows 0.5 GiB: "
                       "about "));
  EXPECT_TRUE(
      contains(refusal(scene, 30'000'000), "t.toml: option '--particles': about 3e7 fluid particles"));
}

TEST_F(LimitedMemory, GrainsAndBodiesFromTheCommandLineAreRefusedToo) {
  const Scene bodies = parse_scene(
      "solver = \"nbody\"\n[nbody]\ndt = 0.01\n[[nbody.system]]\nmodel = \"plummer\"\nbodies = 1000\nmass = "
      "1.0\n"
      "scale_radius = 0.5\n",
      "t.toml");
  try {
    build_nbody_setup(bodies, 100'000'000);
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& error) {
    EXPECT_TRUE(
        contains(error.what(), "t.toml: option '--particles': about 1e8 bodies need at least 5.22 GiB"));
  }
  const Scene grains = parse_scene(
      "solver = \"dem\"\n[domain]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n[dem]\nnormal_model = \"linear\"\n"
      "stiffness = 1000.0\n"
      "[[dem.block]]\nshape = \"box\"\nmin = [0, 0, 0]\nmax = [0.5, 0.5, 0.5]\ngrain_radius = 0.01\n"
      "density = 2500.0\n",
      "t.toml");
  try {
    build_dem_setup(grains, 100'000'000);
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& error) {
    EXPECT_TRUE(contains(error.what(), "t.toml: option '--particles': about 1e8 grains need at least"));
  }
}

TEST(ApproximateCount, GroupsSmallCountsAndShortensLargeOnes) {
  EXPECT_EQ(approximate_count(125000), "125,000");
  EXPECT_EQ(approximate_count(9999999), "9,999,999");
  EXPECT_EQ(approximate_count(1.25e14), "1.2e14");
  EXPECT_EQ(approximate_count(2e9), "2e9");
}

}  // namespace
}  // namespace surge
