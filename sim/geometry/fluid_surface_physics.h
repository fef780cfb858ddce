// The fluid surface's formulas (sim/geometry/fluid_surface.h), one definition for both meshers: the CPU's
// OpenMP loops (fluid_surface.cpp) and the GPU's kernels (fluid_surface_gpu.cu) call these, so the two make
// the same mesh up to the order of a float sum.
//
//   sampling   the node grid and the particles' cell index, from the particles' bounds (host, once)
//   field      c(x) - iso = V sum_j W(|x - x_j|, h) - iso at a node, from the particles in the 27 cells
//              around it
//   vertex     surface nets (Gibson 1998): a cube the level set crosses gets one vertex at the mean of the
//              points where it crosses the cube's 12 edges, and the trilinear field's gradient there as
//              its normal
//   quads      every node edge the level set crosses joins the vertices of the four cubes around it
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/geometry/fluid_surface.h"
#include "sim/index/grid_geometry.h"
#include "sim/index/neighbor_loop.h"
#include "sim/sph/kernels.h"

namespace surge {

// The sampling grid: nodes at origin + cell * (i, j, k). Cube (i, j, k) spans nodes i..i+1, j..j+1,
// k..k+1 and shares its index with its lowest node.
struct SurfaceNodeGrid {
  Vec3f origin{};
  float cell = 1;  // [m]
  int nx = 0, ny = 0, nz = 0;

  SURGE_HD std::size_t count() const { return std::size_t(nx) * std::size_t(ny) * std::size_t(nz); }
  SURGE_HD std::size_t index(int i, int j, int k) const {
    return (std::size_t(k) * std::size_t(ny) + std::size_t(j)) * std::size_t(nx) + std::size_t(i);
  }
  SURGE_HD Vec3f node(int i, int j, int k) const {
    return {origin.x + cell * float(i), origin.y + cell * float(j), origin.z + cell * float(k)};
  }
  // The inverse of index(): a GPU thread's node.
  struct Coordinates {
    int i, j, k;
  };
  SURGE_HD Coordinates coordinates(std::size_t index) const {
    const std::size_t row = index / std::size_t(nx);
    return {int(index % std::size_t(nx)), int(row % std::size_t(ny)), int(row / std::size_t(ny))};
  }
};

// Everything the field is sampled with, made on the host from the particles' bounds.
struct SurfaceSampling {
  SurfaceNodeGrid nodes;
  GridGeometry cells;  // the particles' index: cells of edge h over the nodes' extent
  CubicSplineKernel<float> kernel;
  float volume = 0;  // V = spacing^3 [m^3]
  float iso = 0;
};

// Throws std::invalid_argument for settings that are not positive, or a grid of more than 2^31 nodes.
inline void check_surface_settings(const FluidSurfaceSettings& s) {
  if (!(s.spacing > 0) || !(s.support_factor > 0) || !(s.cell_fraction > 0)) {
    throw std::invalid_argument("fluid surface: spacing, support factor and cell fraction must be > 0");
  }
}

// The grid over particles whose positions lie in [low, high].
inline SurfaceSampling make_surface_sampling(Vec3f low, Vec3f high, const FluidSurfaceSettings& s) {
  check_surface_settings(s);
  const float support = s.support_factor * s.spacing;
  SurfaceSampling sampling;
  SurfaceNodeGrid& nodes = sampling.nodes;
  nodes.cell = s.cell_fraction * s.spacing;
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
  if (nodes.count() > (std::size_t(1) << 31)) {
    throw std::invalid_argument("fluid surface: " + std::to_string(nodes.count()) +
                                " grid nodes; raise the cell fraction");
  }

  GridGeometry& cells = sampling.cells;
  cells.origin = nodes.origin;
  cells.cell_size = support;
  cells.inv_cell_size = 1.0f / support;
  const auto cells_over = [&](int node_count) {
    const int n = int(std::ceil(nodes.cell * float(node_count - 1) / support));
    return n > 1 ? n : 1;
  };
  cells.nx = cells_over(nodes.nx);
  cells.ny = cells_over(nodes.ny);
  cells.nz = cells_over(nodes.nz);

  sampling.kernel = CubicSplineKernel<float>::make(support);
  sampling.volume = s.spacing * s.spacing * s.spacing;
  sampling.iso = s.iso;
  return sampling;
}

// c(x) - iso at x: V sum_j W(|x - x_j|, h) over the particles of `particles` (sorted by sampling.cells),
// in the neighbour loop's order (cells z, y, x, then cell order), so one index gives one sum.
SURGE_HD float colour_field_minus_iso(const SurfaceSampling& sampling, const CellIndexView& particles,
                                      Vec3f x) {
  const float support2 = sampling.kernel.support * sampling.kernel.support;
  float c = 0;
  for_each_neighbor(sampling.cells, particles, x, support2,
                    [&](std::uint32_t, Vec3f, float r2) { c += sampling.kernel.value(sqrtf(r2)); });
  return sampling.volume * c - sampling.iso;
}

// A node is inside the fluid where the field exceeds the level.
SURGE_HD bool inside_surface(float field_minus_iso) {
  return field_minus_iso > 0.0f;
}

// Corner c of a cube is the node at offset (c & 1, (c >> 1) & 1, (c >> 2) & 1) from its lowest node.
SURGE_HD Vec3f cube_corner_offset(int c) {
  return {float(c & 1), float((c >> 1) & 1), float((c >> 2) & 1)};
}

struct CubeCorners {
  float value[8];  // field - iso at each corner
};

// The corners of cube (i, j, k); it needs i < nx - 1, j < ny - 1, k < nz - 1.
SURGE_HD CubeCorners cube_corners(const float* field, const SurfaceNodeGrid& nodes, int i, int j, int k) {
  CubeCorners corners;
  for (int c = 0; c < 8; ++c)
    corners.value[c] = field[nodes.index(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1))];
  return corners;
}

// Whether the level set passes through the cube: some corners inside and some not.
SURGE_HD bool cube_crosses_surface(const CubeCorners& corners) {
  int inside = 0;
  for (int c = 0; c < 8; ++c) inside += inside_surface(corners.value[c]) ? 1 : 0;
  return inside != 0 && inside != 8;
}

struct SurfaceNetVertex {
  Vec3f position;  // [m]
  Vec3f normal;    // unit, outwards
};

// The vertex of a cube the surface crosses, whose lowest node is at `base`: the mean of the points where
// the level set crosses the cube's edges (linear along each), and the outward normal there, -grad c of the
// trilinear field (c grows inwards). The 12 edges go along x, then y, then z; each from the corner a with
// that axis's bit clear to b = a with it set.
SURGE_HD SurfaceNetVertex surface_net_vertex(const CubeCorners& corners, Vec3f base, float cell) {
  const float* v = corners.value;
  Vec3f sum{};
  int crossings = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (int e = 0; e < 4; ++e) {
      const int a = ((e >> axis) << (axis + 1)) | (e & ((1 << axis) - 1));
      const int b = a | (1 << axis);
      if (inside_surface(v[a]) == inside_surface(v[b])) continue;
      const float t = v[a] / (v[a] - v[b]);
      const Vec3f from = cube_corner_offset(a), to = cube_corner_offset(b);
      sum += Vec3f{from.x + t * (to.x - from.x), from.y + t * (to.y - from.y), from.z + t * (to.z - from.z)};
      ++crossings;
    }
  }
  const Vec3f local = (1.0f / float(crossings)) * sum;
  // The trilinear field's gradient at `local` (in cells): d/dx of sum_c v_c wx wy wz.
  Vec3f g{};
  for (int c = 0; c < 8; ++c) {
    const Vec3f corner = cube_corner_offset(c);
    const float wx = corner.x > 0 ? local.x : 1.0f - local.x;
    const float wy = corner.y > 0 ? local.y : 1.0f - local.y;
    const float wz = corner.z > 0 ? local.z : 1.0f - local.z;
    const float sx = corner.x > 0 ? 1.0f : -1.0f, sy = corner.y > 0 ? 1.0f : -1.0f,
                sz = corner.z > 0 ? 1.0f : -1.0f;
    g.x += v[c] * sx * wy * wz;
    g.y += v[c] * sy * wx * wz;
    g.z += v[c] * sz * wx * wy;
  }
  const float length = sqrtf(length_squared(g));
  return {base + cell * local, length > 0 ? (-1.0f / length) * g : Vec3f{0, 0, 1}};
}

// The four cubes (by index) around a node edge the surface crosses, in the order that makes the quad
// counter-clockwise seen from outside.
struct EdgeQuad {
  std::size_t cube[4];
};

// The edges from node (i, j, k) along +x, +y and +z that the level set crosses, as quads, in that order,
// into quads[0 .. returned count). Only interior nodes have them (1 <= i <= nx - 2, and so on): the border
// is outside, so every crossed edge has its four cubes, and each of them is crossed (it holds the edge).
SURGE_HD int crossed_edge_quads(const float* field, const SurfaceNodeGrid& nodes, int i, int j, int k,
                                EdgeQuad quads[3]) {
  if (i < 1 || j < 1 || k < 1 || i > nodes.nx - 2 || j > nodes.ny - 2 || k > nodes.nz - 2) return 0;
  const bool here = inside_surface(field[nodes.index(i, j, k)]);
  int count = 0;
  // Turned to face the edge's end that is not inside: with `here` outside, b and d swap.
  const auto add = [&](std::size_t a, std::size_t b, std::size_t c, std::size_t d) {
    quads[count++] = here ? EdgeQuad{{a, b, c, d}} : EdgeQuad{{a, d, c, b}};
  };
  // Along +x: the cubes (i, j-1..j, k-1..k) share the edge (i, j, k)-(i+1, j, k).
  if (here != inside_surface(field[nodes.index(i + 1, j, k)]))
    add(nodes.index(i, j - 1, k - 1), nodes.index(i, j, k - 1), nodes.index(i, j, k),
        nodes.index(i, j - 1, k));
  if (here != inside_surface(field[nodes.index(i, j + 1, k)]))
    add(nodes.index(i - 1, j, k - 1), nodes.index(i - 1, j, k), nodes.index(i, j, k),
        nodes.index(i, j, k - 1));
  if (here != inside_surface(field[nodes.index(i, j, k + 1)]))
    add(nodes.index(i - 1, j - 1, k), nodes.index(i, j - 1, k), nodes.index(i, j, k),
        nodes.index(i - 1, j, k));
  return count;
}

}  // namespace surge
