// The fluid surface mesh (sim/geometry/fluid_surface.h) against shapes whose surface is known: a ball and a
// box of particles on the lattice the setup places. The mesh must be closed and consistently oriented
// (every edge in two faces, once each way), of genus 0 (V - E + F = 2), facing outwards (positive volume,
// vertex normals along the face normals), and enclose the fluid's volume N * spacing^3.
#include "sim/geometry/fluid_surface.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/io/surface_files.h"
#include "tests/sim/mesh_topology.h"

namespace surge {
namespace {

std::vector<Vec4f> lattice(float spacing, int n, auto&& keep) {
  std::vector<Vec4f> points;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const Vec3f x{(float(i) + 0.5f) * spacing, (float(j) + 0.5f) * spacing, (float(k) + 0.5f) * spacing};
        if (keep(x)) points.push_back(make_vec4(x, 0.0f));
      }
  return points;
}

double area(const TriangleMesh& mesh) {
  double total = 0;
  for (const auto& t : mesh.triangles) {
    const Vec3d a = mesh.vertices[t[0]], b = mesh.vertices[t[1]], c = mesh.vertices[t[2]];
    total += 0.5 * std::sqrt(length_squared(cross(b - a, c - a)));
  }
  return total;
}

TEST(FluidSurface, ABallOfParticlesGivesAClosedOutwardSphereOfItsVolume) {
  const float spacing = 0.01f, radius = 0.1f;
  const Vec3f center{0.125f, 0.125f, 0.125f};
  const auto ball =
      lattice(spacing, 25, [&](Vec3f x) { return length_squared(x - center) < radius * radius; });
  const FluidSurface surface = extract_fluid_surface(ball, {.spacing = spacing});
  const TriangleMesh& mesh = surface.mesh;
  ASSERT_GT(mesh.triangles.size(), 1000u);
  const Topology t = topology(mesh);
  EXPECT_TRUE(t.closed);
  EXPECT_TRUE(t.oriented);
  EXPECT_EQ(t.euler, 2) << "a sphere has genus 0";
  // The fluid's volume is what its particles stand for; the level set 1/2 of the smoothed indicator keeps
  // it up to the smoothing's curvature term (h^2 / R, 4 % here) and the lattice's staircase: 5 %.
  const double fluid_volume = double(ball.size()) * spacing * spacing * spacing;
  const double volume = signed_volume(mesh);
  EXPECT_NEAR(volume / fluid_volume, 1.0, 0.05) << volume << " against " << fluid_volume;
  const double r = std::cbrt(3.0 * fluid_volume / (4.0 * M_PI));
  EXPECT_NEAR(area(mesh) / (4.0 * M_PI * r * r), 1.0, 0.08);
  // Vertices on the sphere of the fluid's volume: their mean radius within 2 % of it, none off by more than
  // half a spacing (the staircase by which a lattice ball's outermost particles stray from a sphere). Normals
  // outwards, radial on average to within 8 degrees; the steps tilt single ones by up to 25 degrees.
  double mean_cosine = 0, least_cosine = 1, mean_radius = 0, largest_miss = 0;
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    const Vec3d d{mesh.vertices[v].x - center.x, mesh.vertices[v].y - center.y,
                  mesh.vertices[v].z - center.z};
    const double distance = std::sqrt(length_squared(d));
    mean_radius += distance / double(mesh.vertices.size());
    largest_miss = std::max(largest_miss, std::abs(distance - r));
    const Vec3f n = surface.normals[v];
    const double cosine = (n.x * d.x + n.y * d.y + n.z * d.z) / distance;
    mean_cosine += cosine / double(mesh.vertices.size());
    least_cosine = std::min(least_cosine, cosine);
  }
  EXPECT_NEAR(mean_radius / r, 1.0, 0.02);
  EXPECT_LT(largest_miss, 0.5 * spacing);
  EXPECT_GT(mean_cosine, std::cos(8.0 * M_PI / 180.0));
  EXPECT_GT(least_cosine, std::cos(25.0 * M_PI / 180.0));
  std::printf(
      "ball: %zu vertices, %zu triangles, volume %.4f and mean radius %.4f of the fluid's, largest miss "
      "%.2f spacings, normals: mean cosine %.4f, least %.4f\n",
      mesh.vertices.size(), mesh.triangles.size(), volume / fluid_volume, mean_radius / r,
      largest_miss / spacing, mean_cosine, least_cosine);
}

TEST(FluidSurface, ABoxOfParticlesEnclosesItsVolumeAndTheFilesSayWhatTheMeshIs) {
  const float spacing = 0.02f;
  const auto box = lattice(spacing, 16, [](Vec3f) { return true; });  // 16 x 16 x 16 particles
  const FluidSurface surface = extract_fluid_surface(box, {.spacing = spacing});
  const Topology t = topology(surface.mesh);
  EXPECT_TRUE(t.closed && t.oriented);
  EXPECT_EQ(t.euler, 2);
  const double fluid_volume = double(box.size()) * spacing * spacing * spacing;
  // Flat faces keep the volume; the edges and corners are rounded over a support: 6 %.
  EXPECT_NEAR(signed_volume(surface.mesh) / fluid_volume, 1.0, 0.06);

  const auto dir = std::filesystem::temp_directory_path() / "surge_fluid_surface_test";
  std::filesystem::create_directories(dir);
  write_surface_ply(dir / "box.ply", surface, 0.5, 42);
  write_surface_obj(dir / "box.obj", surface, 0.5, 42);
  std::ifstream ply(dir / "box.ply", std::ios::binary);
  std::string header, line;
  while (std::getline(ply, line) && line != "end_header") header += line + "\n";
  EXPECT_NE(header.find("element vertex " + std::to_string(surface.mesh.vertices.size())), std::string::npos);
  EXPECT_NE(header.find("element face " + std::to_string(surface.mesh.triangles.size())), std::string::npos);
  const std::size_t body = std::filesystem::file_size(dir / "box.ply") - std::size_t(ply.tellg());
  EXPECT_EQ(body, surface.mesh.vertices.size() * 24 + surface.mesh.triangles.size() * 13);
  std::ifstream obj(dir / "box.obj");
  std::size_t v = 0, vn = 0, f = 0;
  while (std::getline(obj, line)) {
    v += line.rfind("v ", 0) == 0;
    vn += line.rfind("vn ", 0) == 0;
    f += line.rfind("f ", 0) == 0;
  }
  EXPECT_EQ(v, surface.mesh.vertices.size());
  EXPECT_EQ(vn, v);
  EXPECT_EQ(f, surface.mesh.triangles.size());
  EXPECT_FALSE(std::filesystem::exists(dir / "box.ply.tmp"));
}

}  // namespace
}  // namespace surge
