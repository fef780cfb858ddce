// The fluid's surface as a triangle mesh, from its particles, for Blender and ParaView (docs/surfaces.md).
//
// The colour field c(x) = sum_j V W(|x - x_j|, h), with V the particle volume (spacing^3) and W the cubic
// spline of support h, is about 1 inside the fluid and 0 outside; its level set c = 1/2 is the surface. It is
// sampled on a grid of `cell_fraction` spacings over the particles' bounds (padded so the field is zero on
// the grid's border), and the level set is extracted by surface nets (Gibson 1998): one vertex per grid cube
// that the surface crosses, at the mean of the points where it crosses the cube's edges, and a quad for
// every grid edge it crosses, joining the four cubes around that edge. Every edge of the mesh joins exactly
// two faces, so the mesh is closed; its triangles face outwards; normals are the field's gradient, which is
// smoother than the faces'. This computes it on the CPU (OpenMP over grid slices); the GPU backends mesh
// their particles on the device with the same formulas (fluid_surface_physics.h, fluid_surface_gpu.h).
#pragma once

#include <cstddef>
#include <vector>

#include "sim/core/vec.h"
#include "sim/geometry/triangle_mesh.h"

namespace surge {

struct FluidSurfaceSettings {
  float spacing = 0;           // particle spacing [m]: V = spacing^3
  float support_factor = 3.f;  // h = support_factor * spacing (the cubic spline's support)
  float cell_fraction = 0.5f;  // grid cell = cell_fraction * spacing
  float iso = 0.5f;            // the level of c taken as the surface
};

struct FluidSurface {
  TriangleMesh mesh;           // triangles counter-clockwise seen from outside
  std::vector<Vec3f> normals;  // per vertex, unit, outwards
  std::size_t grid_nodes = 0;  // where the field was sampled
};

// Throws std::invalid_argument for a spacing, support or cell fraction that is not positive, or a grid of
// more than 2^31 nodes.
FluidSurface extract_fluid_surface(const std::vector<Vec4f>& positions, const FluidSurfaceSettings& settings);

}  // namespace surge
