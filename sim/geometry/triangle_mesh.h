// A triangle mesh as an indexed face set: the shape a mesh file becomes. Triangles are counter-clockwise
// seen from outside (outward normal (b - a) x (c - a)) once check_mesh() (mesh_check.h) has passed it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/vec.h"

namespace surge {

struct TriangleMesh {
  std::vector<Vec3d> vertices;                          // [m], in the mesh's own frame
  std::vector<std::array<std::uint32_t, 3>> triangles;  // indices into vertices
};

// Merges vertices at exactly the same position, so triangles of different groups (or of a format
// that stores each triangle's corners separately, like STL) share their edges. Vertices no triangle
// uses are dropped.
void weld_identical_vertices(TriangleMesh& mesh);

// Volume enclosed by a closed mesh, positive when its triangles face outwards [m^3].
double signed_volume(const TriangleMesh& mesh);

void flip_orientation(TriangleMesh& mesh);

}  // namespace surge
