// The GPU surface mesher (sim/geometry/fluid_surface_gpu.h) against the CPU's (fluid_surface.h): the same
// vertices and triangles in the same order, up to the float sums' order; a closed, outward ball of the
// fluid's volume; only the mesh crosses the bus, also when a GPU run exports surfaces; and the time to mesh
// four million particles of a dam-break column, printed (docs/perf/ records it, nothing asserts it).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/core/cuda_stream.h"
#include "sim/core/device_buffer.h"
#include "sim/geometry/fluid_surface.h"
#include "sim/geometry/fluid_surface_gpu.h"
#include "sim/io/exporters.h"
#include "sim/io/overlapped_exporter.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "tests/sim/mesh_topology.h"
#include "tests/temporary_directory.h"

namespace surge {
namespace {

namespace fs = std::filesystem;

std::vector<Vec4f> lattice_ball(float spacing, int n, Vec3f center, float radius) {
  std::vector<Vec4f> points;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const Vec3f x{(float(i) + 0.5f) * spacing, (float(j) + 0.5f) * spacing, (float(k) + 0.5f) * spacing};
        if (length_squared(x - center) < radius * radius) points.push_back(make_vec4(x, 0.0f));
      }
  return points;
}

// A block of particles off the lattice (each moved by up to 0.3 spacings), as a running fluid's are.
std::vector<Vec4f> jittered_block(float spacing, int nx, int ny, int nz) {
  std::mt19937 rng(14);
  std::uniform_real_distribution<float> jitter(-0.3f * spacing, 0.3f * spacing);
  std::vector<Vec4f> points;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        points.push_back({(float(i) + 0.5f) * spacing + jitter(rng),
                          (float(j) + 0.5f) * spacing + jitter(rng),
                          (float(k) + 0.5f) * spacing + jitter(rng), 0.0f});
  return points;
}

using LedgerEntries = std::map<std::pair<CopyDirection, std::string>, TransferLedger::Entry>;

// Bytes of `transfers` under `reason`, device to host.
std::size_t bytes_down(const LedgerEntries& transfers, const std::string& reason) {
  std::size_t bytes = 0;
  for (const auto& [key, entry] : transfers)
    if (key == std::pair{CopyDirection::device_to_host, reason}) bytes += entry.bytes;
  return bytes;
}

std::size_t total_bytes(const LedgerEntries& transfers) {
  std::size_t bytes = 0;
  for (const auto& [key, entry] : transfers) bytes += entry.bytes;
  return bytes;
}

struct GpuMesh {
  FluidSurface surface;
  LedgerEntries transfers;  // the mesher's, from its own ledger
};

GpuMesh mesh_on_gpu(const std::vector<Vec4f>& points, const FluidSurfaceSettings& settings) {
  GpuMesh result;
  TransferLedger upload_ledger, ledger;
  DeviceBuffer<Vec4f> d_points;
  if (!points.empty()) copy_to_device(d_points, points, upload_ledger, "test particles");
  CudaStream stream;
  GpuFluidSurfaceMesher mesher;
  result.surface = mesher.extract(d_points.data(), std::uint32_t(points.size()), settings, stream, ledger);
  result.transfers = ledger.entries();
  return result;
}

double distance(Vec3d a, Vec3d b) {
  return std::sqrt(length_squared(a - b));
}

// Same counts, same triangles, vertices and normals within a float sum's reach.
void expect_same_mesh(const FluidSurface& cpu, const FluidSurface& gpu, double cell) {
  ASSERT_EQ(gpu.grid_nodes, cpu.grid_nodes) << "the GPU sampled another grid";
  ASSERT_EQ(gpu.mesh.vertices.size(), cpu.mesh.vertices.size());
  ASSERT_EQ(gpu.mesh.triangles.size(), cpu.mesh.triangles.size());
  ASSERT_EQ(gpu.normals.size(), cpu.normals.size());
  double largest_miss = 0, largest_normal_miss = 0;
  for (std::size_t v = 0; v < cpu.mesh.vertices.size(); ++v) {
    largest_miss = std::max(largest_miss, distance(cpu.mesh.vertices[v], gpu.mesh.vertices[v]));
    const Vec3f dn = cpu.normals[v] - gpu.normals[v];
    largest_normal_miss = std::max(largest_normal_miss, double(std::sqrt(length_squared(dn))));
  }
  std::size_t different_triangles = 0;
  for (std::size_t t = 0; t < cpu.mesh.triangles.size(); ++t)
    different_triangles += cpu.mesh.triangles[t] != gpu.mesh.triangles[t] ? 1 : 0;
  std::printf("%zu vertices, %zu triangles: largest vertex miss %.2e cells, largest normal miss %.2e\n",
              cpu.mesh.vertices.size(), cpu.mesh.triangles.size(), largest_miss / cell, largest_normal_miss);
  // The field's sums differ in rounding only (the GPU fuses multiply-adds): a vertex moves by a
  // millionth of a cell where its edges' values differ by a tenth; 1 % of a cell allows for edges
  // crossed at a near-tangent.
  EXPECT_LT(largest_miss, 0.01 * cell);
  EXPECT_LT(largest_normal_miss, 0.01);
  EXPECT_EQ(different_triangles, 0u);
}

TEST(GpuFluidSurface, BallMeshEqualsTheCpuMesh) {
  const float spacing = 0.01f;
  const auto ball = lattice_ball(spacing, 25, {0.125f, 0.125f, 0.125f}, 0.1f);
  const FluidSurfaceSettings settings{.spacing = spacing};
  const FluidSurface cpu = extract_fluid_surface(ball, settings);
  ASSERT_GT(cpu.mesh.triangles.size(), 1000u);
  expect_same_mesh(cpu, mesh_on_gpu(ball, settings).surface, settings.cell_fraction * spacing);
}

TEST(GpuFluidSurface, JitteredBlockMeshEqualsTheCpuMesh) {
  const float spacing = 0.02f;
  const auto block = jittered_block(spacing, 40, 20, 30);
  for (const float cell_fraction : {0.5f, 0.35f}) {
    SCOPED_TRACE(cell_fraction);
    const FluidSurfaceSettings settings{.spacing = spacing, .cell_fraction = cell_fraction};
    const FluidSurface cpu = extract_fluid_surface(block, settings);
    ASSERT_GT(cpu.mesh.triangles.size(), 1000u);
    expect_same_mesh(cpu, mesh_on_gpu(block, settings).surface, cell_fraction * spacing);
  }
}

TEST(GpuFluidSurface, NoParticlesNoMeshAndBadSettingsThrow) {
  const GpuMesh empty = mesh_on_gpu({}, {.spacing = 0.01f});
  EXPECT_TRUE(empty.surface.mesh.vertices.empty());
  EXPECT_TRUE(empty.surface.mesh.triangles.empty());
  EXPECT_EQ(total_bytes(empty.transfers), 0u);
  EXPECT_THROW(mesh_on_gpu(std::vector<Vec4f>{Vec4f{0, 0, 0, 0}}, {.spacing = 0.0f}), std::invalid_argument);
}

std::size_t mesh_bytes(const FluidSurface& surface) {
  return surface.mesh.vertices.size() * 2 * sizeof(Vec3f) +
         surface.mesh.triangles.size() * 3 * sizeof(std::uint32_t);
}

TEST(GpuFluidSurface, ABallOfParticlesGivesAClosedOutwardSphereOfItsVolumeAndOnlyTheMeshCrosses) {
  const float spacing = 0.01f, radius = 0.1f;
  const Vec3f center{0.125f, 0.125f, 0.125f};
  const auto ball = lattice_ball(spacing, 25, center, radius);
  const GpuMesh gpu = mesh_on_gpu(ball, {.spacing = spacing});
  const TriangleMesh& mesh = gpu.surface.mesh;
  ASSERT_GT(mesh.triangles.size(), 1000u);
  const Topology t = topology(mesh);
  EXPECT_TRUE(t.closed) << "an edge with one face";
  EXPECT_TRUE(t.oriented) << "an edge twice the same way, or in more than two faces";
  EXPECT_EQ(t.euler, 2) << "a sphere has genus 0";
  // The sphere of particles stands for N spacing^3 of fluid; the CPU's mesh of it encloses 0.976 of that.
  const double fluid_volume = double(ball.size()) * spacing * spacing * spacing;
  const double volume = signed_volume(mesh);
  EXPECT_NEAR(volume / fluid_volume, 1.0, 0.03) << volume << " against " << fluid_volume;
  double least_cosine = 1;
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    const Vec3d d{mesh.vertices[v].x - center.x, mesh.vertices[v].y - center.y,
                  mesh.vertices[v].z - center.z};
    const Vec3f n = gpu.surface.normals[v];
    least_cosine = std::min(least_cosine, (n.x * d.x + n.y * d.y + n.z * d.z) / std::sqrt(length_squared(d)));
  }
  EXPECT_GT(least_cosine, std::cos(25.0 * M_PI / 180.0)) << "a normal points away from the outside";
  // The mesh (12 bytes a vertex, a normal, a triangle) and the sizes: bounds (24 bytes) and two counts.
  EXPECT_EQ(bytes_down(gpu.transfers, kSurfaceMeshTransfer), mesh_bytes(gpu.surface));
  EXPECT_EQ(bytes_down(gpu.transfers, kSurfaceSizesTransfer), 32u);
  EXPECT_EQ(total_bytes(gpu.transfers), mesh_bytes(gpu.surface) + 32u) << "something else crossed the bus";
  std::printf("gpu ball: %zu vertices, %zu triangles, volume %.4f of the fluid's, least normal cosine %.4f\n",
              mesh.vertices.size(), mesh.triangles.size(), volume / fluid_volume, least_cosine);
}

std::string ply_header(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string header, line;
  while (std::getline(in, line) && line != "end_header") header += line + "\n";
  return header;
}

TEST(GpuFluidSurface, AGpuRunExportsSurfacesMeshedOnTheDevice) {
  // A dam break stepped on the GPU, exported as surfaces through the overlapped exporter: the particles
  // never cross (no "export frame" bytes), the mesh does, and the file is the CPU's mesh of the same step.
  TemporaryDirectory directory("surge-gpu-surface");
  const SphSetup setup = build_setup(load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml"), 50000);
  auto gpu = make_cuda_simulation(setup);
  for (int s = 0; s < 50; ++s) gpu->step();
  ParticleFrame frame;
  gpu->download(frame);
  const FluidSurfaceSettings settings{.spacing = setup.params.spacing};
  const FluidSurface cpu = extract_fluid_surface(frame.position, settings);
  gpu->ledger().clear();
  {
    OverlappedExporter exporter(*gpu,
                                FrameExporter(directory.path(), "run", {ExportFormat::surface}, settings), 2);
    exporter.submit(gpu->status());
    exporter.finish();
    EXPECT_EQ(exporter.times().frames_written, 1);
  }
  EXPECT_EQ(bytes_down(gpu->ledger().entries(), "export frame"), 0u) << "the particles were downloaded";
  const std::size_t mesh = bytes_down(gpu->ledger().entries(), kSurfaceMeshTransfer);
  EXPECT_EQ(mesh, mesh_bytes(cpu)) << "the device's mesh is not the CPU's size";
  const std::string header = ply_header(directory.path() / "run_surface_000000.ply");
  EXPECT_NE(header.find("element vertex " + std::to_string(cpu.mesh.vertices.size()) + "\n"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("element face " + std::to_string(cpu.mesh.triangles.size()) + "\n"),
            std::string::npos)
      << header;
  std::printf("dam break, %zu particles at step 50: %zu mesh bytes crossed, %zu particle bytes would have\n",
              frame.size(), mesh,
              frame.size() * (2 * sizeof(Vec4f) + 2 * sizeof(float) + sizeof(std::uint32_t)));
}

TEST(GpuFluidSurface, FourMillionParticlesOfADamBreakColumn) {
  // The target: a surface mesh of 4M particles in 50 ms on the H200. Printed, not asserted; the
  // mesh must still enclose the column's volume (flat faces keep it; edges and corners round off).
  const SphSetup setup = build_setup(load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml"), 4000000);
  const std::vector<Vec4f>& column = setup.fluid.position;
  const FluidSurfaceSettings settings{.spacing = setup.params.spacing};
  TransferLedger ledger;
  DeviceBuffer<Vec4f> d_column;
  copy_to_device(d_column, column, ledger, "test particles");
  CudaStream stream;
  GpuFluidSurfaceMesher mesher;
  FluidSurface surface =
      mesher.extract(d_column.data(), std::uint32_t(column.size()), settings, stream, ledger);
  constexpr int kRuns = 5;  // after the first, which allocates
  double total_ms = 0, best_ms = 1e30;
  for (int run = 0; run < kRuns; ++run) {
    const auto start = std::chrono::steady_clock::now();
    surface = mesher.extract(d_column.data(), std::uint32_t(column.size()), settings, stream, ledger);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    total_ms += ms;
    best_ms = std::min(best_ms, ms);
  }
  const GpuSurfaceStageMs& stage = mesher.stage_ms();
  std::printf(
      "gpu surface mesh: %zu particles, %zu grid nodes -> %zu vertices, %zu triangles (%.1f MB over the "
      "bus)\n"
      "  wall %.2f ms mean, %.2f ms best of %d (target 50 ms)\n"
      "  last run by stage [ms]: bounds %.2f, index %.2f, field %.2f, classify %.2f, assemble %.2f, "
      "download %.2f\n",
      column.size(), surface.grid_nodes, surface.mesh.vertices.size(), surface.mesh.triangles.size(),
      double(mesh_bytes(surface)) / 1e6, total_ms / kRuns, best_ms, kRuns, stage.bounds, stage.index,
      stage.field, stage.classify, stage.assemble, stage.download);
  ASSERT_GT(surface.mesh.triangles.size(), 0u);
  const double fluid_volume = double(column.size()) * std::pow(double(settings.spacing), 3.0);
  EXPECT_NEAR(signed_volume(surface.mesh) / fluid_volume, 1.0, 0.06);
}

}  // namespace
}  // namespace surge
