// The fluid surface as an OpenVDB level set (sim/io/surface_vdb.h), read back with OpenVDB's own file
// reader, as Houdini and Blender read it: a ball of particles must give a level-set grid named "surface"
// whose zero crossing is the surface mesh (the same radius within a tenth of a voxel), negative inside and
// positive outside, whose enclosed volume is the mesh's, with the frame's time and step as metadata. Without
// OpenVDB in the build, asking for the format must fail by name.
#include "sim/io/surface_vdb.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/io/exporters.h"

#if SURGE_HAVE_OPENVDB
#include <openvdb/io/File.h>
#include <openvdb/openvdb.h>
#include <openvdb/tools/Interpolation.h>
#include <openvdb/tools/LevelSetMeasure.h>
#endif

namespace surge {
namespace {

struct Ball {
  float spacing = 0.01f, radius = 0.1f;
  Vec3f center{0.125f, 0.125f, 0.125f};
  std::vector<Vec4f> particles() const {
    std::vector<Vec4f> points;
    for (int k = 0; k < 25; ++k)
      for (int j = 0; j < 25; ++j)
        for (int i = 0; i < 25; ++i) {
          const Vec3f x{(float(i) + 0.5f) * spacing, (float(j) + 0.5f) * spacing,
                        (float(k) + 0.5f) * spacing};
          if (length_squared(x - center) < radius * radius) points.push_back(make_vec4(x, 0.0f));
        }
    return points;
  }
};

std::filesystem::path scratch_file(const char* name) {
  const std::filesystem::path directory = std::filesystem::temp_directory_path() / "surge_surface_vdb_test";
  std::filesystem::create_directories(directory);
  return directory / name;
}

#if SURGE_HAVE_OPENVDB

// The farthest distance t > 0 at which origin + t direction crosses a triangle of `mesh` (Moller & Trumbore
// 1997); 0 when it crosses none. From inside a closed convex-ish mesh that is where the ray leaves it. The
// barycentric tests allow a rounding's worth of slack: a ray through a shared edge or vertex (the ball sits
// on the grid's symmetry lines) would otherwise slip between the triangles on both sides.
double ray_exit(const TriangleMesh& mesh, const Vec3d& origin, const Vec3d& direction) {
  double farthest = 0;
  for (const auto& t : mesh.triangles) {
    const Vec3d a = mesh.vertices[t[0]], b = mesh.vertices[t[1]], c = mesh.vertices[t[2]];
    const Vec3d ab = b - a, ac = c - a, p = cross(direction, ac);
    const double det = dot(ab, p);
    if (std::abs(det) < 1e-18) continue;
    const Vec3d s = origin - a;
    const double u = dot(s, p) / det;
    constexpr double kSlack = 1e-9;
    if (u < -kSlack || u > 1 + kSlack) continue;
    const Vec3d q = cross(s, ab);
    const double v = dot(direction, q) / det;
    if (v < -kSlack || u + v > 1 + kSlack) continue;
    farthest = std::max(farthest, dot(ac, q) / det);
  }
  return farthest;
}

TEST(SurfaceVdb, ABallOfParticlesReadsBackAsTheLevelSetOfItsSurfaceMesh) {
  const Ball ball;
  const FluidSurfaceSettings settings{.spacing = ball.spacing};
  const FluidSurface surface = extract_fluid_surface(ball.particles(), settings);
  const double voxel = double(settings.cell_fraction) * settings.spacing;
  const std::filesystem::path path = scratch_file("ball.vdb");
  write_surface_vdb(path, surface, voxel, 0.25, 1234);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp")) << "the temporary file was renamed";

  openvdb::initialize();
  openvdb::io::File file(path.string());
  file.open();
  const openvdb::GridBase::Ptr base = file.readGrid(kVdbSurfaceGrid);
  file.close();
  const openvdb::FloatGrid::Ptr grid = openvdb::gridPtrCast<openvdb::FloatGrid>(base);
  ASSERT_TRUE(grid) << "the grid is a float grid";
  EXPECT_EQ(grid->getGridClass(), openvdb::GRID_LEVEL_SET);
  EXPECT_NEAR(grid->voxelSize()[0], voxel, 1e-9);
  EXPECT_DOUBLE_EQ(grid->metaValue<double>("time_s"), 0.25);
  EXPECT_EQ(grid->metaValue<openvdb::Int64>("step"), 1234);
  EXPECT_NEAR(grid->background(), kVdbHalfWidth * voxel, 1e-6) << "the narrow band's width";

  // Along 26 directions from the centre: negative inside (the centre lies far beyond the narrow band: its
  // value is the inside background), positive outside, and the zero crossing (bisected on the trilinearly
  // interpolated field) where the ray leaves the mesh (its intersection with the mesh's triangles).
  const openvdb::tools::GridSampler<openvdb::FloatGrid, openvdb::tools::BoxSampler> sampler(*grid);
  const Vec3d origin{ball.center.x, ball.center.y, ball.center.z};
  const auto at = [&](const Vec3d& direction, double r) {
    const Vec3d x = origin + direction * r;
    return sampler.wsSample(openvdb::Vec3d(x.x, x.y, x.z));
  };
  EXPECT_LT(at({1, 0, 0}, 0.0), 0.0f) << "the centre is inside";
  double largest_miss = 0;
  int rays = 0;
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dz = -1; dz <= 1; ++dz) {
        if (dx == 0 && dy == 0 && dz == 0) continue;
        const double norm = std::sqrt(double(dx * dx + dy * dy + dz * dz));
        const Vec3d direction{dx / norm, dy / norm, dz / norm};
        const double exit = ray_exit(surface.mesh, origin, direction);
        ASSERT_GT(exit, 0.0) << "the ray (" << dx << ", " << dy << ", " << dz << ") leaves the mesh";
        double inside = 0.5 * exit, outside = 1.5 * exit;
        ASSERT_LT(at(direction, inside), 0.0f);
        ASSERT_GT(at(direction, outside), 0.0f);
        for (int k = 0; k < 40; ++k) {
          const double middle = 0.5 * (inside + outside);
          (at(direction, middle) < 0.0f ? inside : outside) = middle;
        }
        largest_miss = std::max(largest_miss, std::abs(inside - exit));
        ++rays;
      }
  EXPECT_EQ(rays, 26);
  EXPECT_LT(largest_miss, 0.1 * voxel);
  // Near the surface the values are distances: one voxel outwards along a ray adds one voxel.
  const Vec3d up{0, 0, 1};
  const double top = ray_exit(surface.mesh, origin, up);
  const double step_gain = (at(up, top + voxel) - at(up, top)) / voxel;
  EXPECT_NEAR(step_gain, 1.0, 0.1);
  // The enclosed volume: OpenVDB's measure of the level set against the mesh's own signed volume.
  const double grid_volume = openvdb::tools::levelSetVolume(*grid);
  const double mesh_volume = signed_volume(surface.mesh);
  EXPECT_NEAR(grid_volume / mesh_volume, 1.0, 0.01);
  std::printf(
      "vdb ball: %llu active voxels of %.4f m, zero crossing within %.3f voxels of the mesh over 26 "
      "rays, distance gain %.3f per voxel, volume %.5f of the mesh's\n",
      static_cast<unsigned long long>(grid->activeVoxelCount()), voxel, largest_miss / voxel, step_gain,
      grid_volume / mesh_volume);
}

TEST(SurfaceVdb, AnUnwritableDirectoryIsAnErrorNamingTheFileAndLeavesNothing) {
  const Ball ball;
  const FluidSurface surface = extract_fluid_surface(ball.particles(), {.spacing = ball.spacing});
  const std::filesystem::path missing = scratch_file("no_such_directory") / "ball.vdb";
  try {
    write_surface_vdb(missing, surface, 0.005, 0.0, 0);
    FAIL() << "writing into a missing directory succeeded";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(missing.string()), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(missing.parent_path()));
}

TEST(SurfaceVdb, TheFormatIsKnownAndNamesItsFiles) {
  EXPECT_EQ(parse_export_format("vdb"), ExportFormat::vdb);
  EXPECT_TRUE(meshes_surface(ExportFormat::vdb));
  EXPECT_TRUE(is_series_file("run_surface_000003.vdb", "run"));
  EXPECT_TRUE(is_series_file("run_surface_000003.vdb.tmp", "run"));
  EXPECT_FALSE(is_series_file("run_000003.vdb", "run")) << "only surface frames are .vdb";
}

#else

TEST(SurfaceVdb, WithoutOpenVdbTheFormatIsRefusedByName) {
  EXPECT_FALSE(vdb_export_available());
  try {
    parse_export_format("vdb");
    FAIL() << "vdb accepted by a build without OpenVDB";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("OpenVDB"), std::string::npos) << error.what();
  }
  const Ball ball;
  const FluidSurface surface = extract_fluid_surface(ball.particles(), {.spacing = ball.spacing});
  const std::filesystem::path path = scratch_file("ball.vdb");
  EXPECT_THROW(write_surface_vdb(path, surface, 0.005, 0.0, 0), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

#endif

}  // namespace
}  // namespace surge
