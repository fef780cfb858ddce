#include "sim/geometry/fluid_surface.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>

#include "sim/geometry/fluid_surface_physics.h"
#include "sim/index/cell_index_cpu.h"

namespace surge {
namespace {

// c(node) - iso at every node, gathered from the particles in the 27 index cells (of edge h) around it.
std::vector<float> sample_field(const std::vector<Vec4f>& positions, const SurfaceSampling& sampling) {
  CpuCellIndex index;
  index.build(sampling.cells, std::span<const Vec4f>(positions));
  std::vector<Vec4f> sorted(positions.size());
  for (std::size_t k = 0; k < positions.size(); ++k) sorted[k] = positions[index.sorted_order()[k]];
  const CellIndexView particles{.positions = sorted.data(), .cell_start = index.cell_start().data()};

  const SurfaceNodeGrid& nodes = sampling.nodes;
  std::vector<float> field(nodes.count());
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < nodes.nz; ++k)
    for (int j = 0; j < nodes.ny; ++j)
      for (int i = 0; i < nodes.nx; ++i)
        field[nodes.index(i, j, k)] = colour_field_minus_iso(sampling, particles, nodes.node(i, j, k));
  return field;
}

}  // namespace

FluidSurface extract_fluid_surface(const std::vector<Vec4f>& positions, const FluidSurfaceSettings& s) {
  check_surface_settings(s);
  FluidSurface surface;
  if (positions.empty()) return surface;
  Vec3f low{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
            std::numeric_limits<float>::max()};
  Vec3f high{-low.x, -low.y, -low.z};
  for (const Vec4f& p : positions) {
    low = {std::min(low.x, p.x), std::min(low.y, p.y), std::min(low.z, p.z)};
    high = {std::max(high.x, p.x), std::max(high.y, p.y), std::max(high.z, p.z)};
  }
  const SurfaceSampling sampling = make_surface_sampling(low, high, s);
  const SurfaceNodeGrid& nodes = sampling.nodes;
  surface.grid_nodes = nodes.count();
  const std::vector<float> f = sample_field(positions, sampling);

  // One vertex per cube the surface crosses, in cube order.
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> vertex_of(surface.grid_nodes, kNone);
  for (int k = 0; k + 1 < nodes.nz; ++k) {
    for (int j = 0; j + 1 < nodes.ny; ++j) {
      for (int i = 0; i + 1 < nodes.nx; ++i) {
        const CubeCorners corners = cube_corners(f.data(), nodes, i, j, k);
        if (!cube_crosses_surface(corners)) continue;
        const SurfaceNetVertex vertex = surface_net_vertex(corners, nodes.node(i, j, k), nodes.cell);
        vertex_of[nodes.index(i, j, k)] = std::uint32_t(surface.mesh.vertices.size());
        surface.mesh.vertices.push_back(
            {double(vertex.position.x), double(vertex.position.y), double(vertex.position.z)});
        surface.normals.push_back(vertex.normal);
      }
    }
  }

  // Two triangles for every node edge the surface crosses, in node order.
  for (int k = 1; k + 1 < nodes.nz; ++k) {
    for (int j = 1; j + 1 < nodes.ny; ++j) {
      for (int i = 1; i + 1 < nodes.nx; ++i) {
        EdgeQuad quads[3];
        const int count = crossed_edge_quads(f.data(), nodes, i, j, k, quads);
        for (int q = 0; q < count; ++q) {
          const std::uint32_t a = vertex_of[quads[q].cube[0]], b = vertex_of[quads[q].cube[1]],
                              c = vertex_of[quads[q].cube[2]], d = vertex_of[quads[q].cube[3]];
          surface.mesh.triangles.push_back({a, b, c});
          surface.mesh.triangles.push_back({a, c, d});
        }
      }
    }
  }
  return surface;
}

}  // namespace surge
