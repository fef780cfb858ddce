#include "sim/geometry/fluid_surface.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>

#include "sim/index/cell_index_cpu.h"
#include "sim/index/grid_geometry.h"
#include "sim/sph/kernels.h"

namespace surge {
namespace {

// The sampling grid: nodes at origin + cell * (i, j, k).
struct NodeGrid {
  Vec3f origin{};
  float cell = 1;
  int nx = 0, ny = 0, nz = 0;
  std::size_t index(int i, int j, int k) const {
    return (std::size_t(k) * std::size_t(ny) + std::size_t(j)) * std::size_t(nx) + std::size_t(i);
  }
  Vec3f node(int i, int j, int k) const {
    return {origin.x + cell * float(i), origin.y + cell * float(j), origin.z + cell * float(k)};
  }
};

// c(node) - iso at every node, gathered from the particles in the 27 index cells (of edge h) around it.
std::vector<float> sample_field(const std::vector<Vec4f>& positions, const FluidSurfaceSettings& s,
                                const NodeGrid& nodes, float support) {
  GridGeometry cells;
  cells.origin = nodes.origin;
  cells.cell_size = support;
  cells.inv_cell_size = 1.0f / support;
  const float extent_x = nodes.cell * float(nodes.nx - 1), extent_y = nodes.cell * float(nodes.ny - 1),
              extent_z = nodes.cell * float(nodes.nz - 1);
  cells.nx = std::max(1, int(std::ceil(extent_x / support)));
  cells.ny = std::max(1, int(std::ceil(extent_y / support)));
  cells.nz = std::max(1, int(std::ceil(extent_z / support)));
  CpuCellIndex index;
  index.build(cells, std::span<const Vec4f>(positions));
  std::vector<Vec4f> sorted(positions.size());
  for (std::size_t k = 0; k < positions.size(); ++k) sorted[k] = positions[index.sorted_order()[k]];
  const std::vector<std::uint32_t>& start = index.cell_start();

  const CubicSplineKernel<float> kernel = CubicSplineKernel<float>::make(support);
  const float volume = s.spacing * s.spacing * s.spacing;
  const float support2 = support * support;
  std::vector<float> field(std::size_t(nodes.nx) * nodes.ny * nodes.nz);
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < nodes.nz; ++k) {
    for (int j = 0; j < nodes.ny; ++j) {
      for (int i = 0; i < nodes.nx; ++i) {
        const Vec3f x = nodes.node(i, j, k);
        const int cx = cells.cell_x(x.x), cy = cells.cell_y(x.y), cz = cells.cell_z(x.z);
        float c = 0;
        for (int z = std::max(cz - 1, 0); z <= std::min(cz + 1, cells.nz - 1); ++z)
          for (int y = std::max(cy - 1, 0); y <= std::min(cy + 1, cells.ny - 1); ++y)
            for (int xcell = std::max(cx - 1, 0); xcell <= std::min(cx + 1, cells.nx - 1); ++xcell) {
              const std::uint32_t key = cells.key(xcell, y, z);
              for (std::uint32_t p = start[key]; p < start[key + 1]; ++p) {
                const float r2 = length_squared(x - xyz(sorted[p]));
                if (r2 < support2) c += kernel.value(std::sqrt(r2));
              }
            }
        field[nodes.index(i, j, k)] = volume * c - s.iso;
      }
    }
  }
  return field;
}

}  // namespace

FluidSurface extract_fluid_surface(const std::vector<Vec4f>& positions, const FluidSurfaceSettings& s) {
  if (!(s.spacing > 0) || !(s.support_factor > 0) || !(s.cell_fraction > 0)) {
    throw std::invalid_argument("fluid surface: spacing, support factor and cell fraction must be > 0");
  }
  FluidSurface surface;
  if (positions.empty()) return surface;
  const float support = s.support_factor * s.spacing;
  NodeGrid nodes;
  nodes.cell = s.cell_fraction * s.spacing;
  Vec3f low{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
            std::numeric_limits<float>::max()};
  Vec3f high{-low.x, -low.y, -low.z};
  for (const Vec4f& p : positions) {
    low = {std::min(low.x, p.x), std::min(low.y, p.y), std::min(low.z, p.z)};
    high = {std::max(high.x, p.x), std::max(high.y, p.y), std::max(high.z, p.z)};
  }
  // A support and two cells of margin: the field is zero on the border, so the surface closes inside.
  const float pad = support + 2.0f * nodes.cell;
  // Shifted off the particles' lattice by an irrational fraction of a cell: where a lattice face's level set
  // falls exactly on a plane of nodes, the nodes' values straddle the level by rounding alone, in a
  // checkerboard whose saddles make non-manifold edges (four faces on one edge). Particles placed by the
  // setup sit on such a lattice in the first frame.
  const float shift = 0.31830988f * nodes.cell;  // 1 / pi
  nodes.origin = {low.x - pad - shift, low.y - pad - shift, low.z - pad - shift};
  const auto count = [&](float extent) { return int(std::ceil((extent + 2.0f * pad) / nodes.cell)) + 1; };
  nodes.nx = count(high.x - low.x);
  nodes.ny = count(high.y - low.y);
  nodes.nz = count(high.z - low.z);
  surface.grid_nodes = std::size_t(nodes.nx) * nodes.ny * nodes.nz;
  if (surface.grid_nodes > (std::size_t(1) << 31)) {
    throw std::invalid_argument("fluid surface: " + std::to_string(surface.grid_nodes) +
                                " grid nodes; raise the cell fraction");
  }
  const std::vector<float> f = sample_field(positions, s, nodes, support);
  const auto inside = [&](int i, int j, int k) { return f[nodes.index(i, j, k)] > 0.0f; };

  // One vertex per cube the surface crosses (cube (i, j, k) spans nodes i..i+1, j..j+1, k..k+1).
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> vertex_of(surface.grid_nodes, kNone);
  static constexpr std::array<std::array<int, 3>, 8> kCorner = {
      {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}};
  static constexpr std::array<std::array<int, 2>, 12> kEdge = {
      {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}};
  for (int k = 0; k + 1 < nodes.nz; ++k) {
    for (int j = 0; j + 1 < nodes.ny; ++j) {
      for (int i = 0; i + 1 < nodes.nx; ++i) {
        std::array<float, 8> v{};
        int in = 0;
        for (int c = 0; c < 8; ++c) {
          v[c] = f[nodes.index(i + kCorner[c][0], j + kCorner[c][1], k + kCorner[c][2])];
          in += v[c] > 0.0f ? 1 : 0;
        }
        if (in == 0 || in == 8) continue;
        Vec3f sum{};
        int crossings = 0;
        for (const auto& [a, b] : kEdge) {
          if ((v[a] > 0.0f) == (v[b] > 0.0f)) continue;
          const float t = v[a] / (v[a] - v[b]);
          for (int axis = 0; axis < 3; ++axis) {
            const float offset = float(kCorner[a][axis]) + t * float(kCorner[b][axis] - kCorner[a][axis]);
            (axis == 0 ? sum.x : axis == 1 ? sum.y : sum.z) += offset;
          }
          ++crossings;
        }
        const Vec3f local = (1.0f / float(crossings)) * sum;
        const Vec3f base = nodes.node(i, j, k);
        const Vec3f x = base + nodes.cell * local;
        // The field's gradient in the cube (trilinear), at the vertex; it points inwards (c grows inside).
        Vec3f g{};
        for (int c = 0; c < 8; ++c) {
          const float wx = kCorner[c][0] ? local.x : 1.0f - local.x;
          const float wy = kCorner[c][1] ? local.y : 1.0f - local.y;
          const float wz = kCorner[c][2] ? local.z : 1.0f - local.z;
          const float sx = kCorner[c][0] ? 1.0f : -1.0f, sy = kCorner[c][1] ? 1.0f : -1.0f,
                      sz = kCorner[c][2] ? 1.0f : -1.0f;
          g.x += v[c] * sx * wy * wz;
          g.y += v[c] * sy * wx * wz;
          g.z += v[c] * sz * wx * wy;
        }
        const float length = std::sqrt(length_squared(g));
        vertex_of[nodes.index(i, j, k)] = std::uint32_t(surface.mesh.vertices.size());
        surface.mesh.vertices.push_back({double(x.x), double(x.y), double(x.z)});
        surface.normals.push_back(length > 0 ? (-1.0f / length) * g : Vec3f{0, 0, 1});
      }
    }
  }

  // A quad for every node edge the surface crosses, from the four cubes around it, turned so that it faces
  // the outside (the edge's end that is not inside).
  const auto quad = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d, bool flip) {
    if (a == kNone || b == kNone || c == kNone || d == kNone) return;  // cannot happen inside the padding
    if (flip) std::swap(b, d);
    surface.mesh.triangles.push_back({a, b, c});
    surface.mesh.triangles.push_back({a, c, d});
  };
  const auto cube = [&](int i, int j, int k) { return vertex_of[nodes.index(i, j, k)]; };
  for (int k = 1; k + 1 < nodes.nz; ++k) {
    for (int j = 1; j + 1 < nodes.ny; ++j) {
      for (int i = 1; i + 1 < nodes.nx; ++i) {
        const bool here = inside(i, j, k);
        // Along +x: the cubes (i, j-1..j, k-1..k) share the edge (i, j, k)-(i+1, j, k).
        if (here != inside(i + 1, j, k))
          quad(cube(i, j - 1, k - 1), cube(i, j, k - 1), cube(i, j, k), cube(i, j - 1, k), !here);
        if (here != inside(i, j + 1, k))
          quad(cube(i - 1, j, k - 1), cube(i - 1, j, k), cube(i, j, k), cube(i, j, k - 1), !here);
        if (here != inside(i, j, k + 1))
          quad(cube(i - 1, j - 1, k), cube(i, j - 1, k), cube(i, j, k), cube(i - 1, j, k), !here);
      }
    }
  }
  return surface;
}

}  // namespace surge
