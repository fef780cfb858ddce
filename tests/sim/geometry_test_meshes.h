// Meshes built in code for the geometry tests, so the inside test and mass properties are tested on
// builds without mesh import (assimp) too. Both are the box [-0.5, 0.5]^3, facing outwards.
#pragma once

#include <array>
#include <cstdint>

#include "sim/geometry/triangle_mesh.h"

namespace surge {

// The unit cube with each face split into cells x cells squares of two triangles: 12 cells^2 triangles
// (cells = 29 gives 10,092). The diagonals of neighbouring cells alternate, so rays meet both kinds.
inline TriangleMesh tessellated_unit_cube(int cells) {
  TriangleMesh mesh;
  const auto vertex = [&](Vec3d p) {
    mesh.vertices.push_back(p);
    return std::uint32_t(mesh.vertices.size() - 1);
  };
  for (int axis = 0; axis < 3; ++axis)
    for (double side : {-0.5, 0.5}) {
      // (u, w) with u x w along +axis; flipped on the low side, so every face points outwards.
      const int u = (axis + 1) % 3, w = (axis + 2) % 3;
      const auto at = [&](int i, int j) {
        double p[3];
        p[axis] = side;
        p[u] = -0.5 + double(i) / cells;
        p[w] = -0.5 + double(j) / cells;
        return Vec3d{p[0], p[1], p[2]};
      };
      for (int i = 0; i < cells; ++i)
        for (int j = 0; j < cells; ++j) {
          const std::uint32_t a = vertex(at(i, j)), b = vertex(at(i + 1, j)), c = vertex(at(i + 1, j + 1)),
                              d = vertex(at(i, j + 1));
          std::array<std::uint32_t, 3> t1{a, b, c}, t2{a, c, d};
          if ((i + j) % 2 == 1) t1 = {a, b, d}, t2 = {b, c, d};
          if (side < 0) std::swap(t1[1], t1[2]), std::swap(t2[1], t2[2]);
          mesh.triangles.push_back(t1);
          mesh.triangles.push_back(t2);
        }
    }
  weld_identical_vertices(mesh);
  return mesh;
}

inline TriangleMesh unit_cube_mesh() {
  return tessellated_unit_cube(1);
}

}  // namespace surge
