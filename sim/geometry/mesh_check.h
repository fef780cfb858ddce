// The checks a mesh must pass before it can be a solid: an inside test and a volume need a closed,
// consistently oriented surface of finite, non-degenerate triangles. Each failure throws MeshError
// naming the file and the first problem found, in this order: a vertex that is NaN or infinite, no
// triangles, a triangle of zero area, open edges, inconsistently oriented faces, no enclosed volume.
//
// A mesh whose faces all point inwards (negative signed volume) is flipped, not rejected: exporters
// disagree on winding, and the fix is unambiguous once the surface is closed and consistent. The result
// says so, for the loader to mention.
#pragma once

#include <string>

#include "sim/geometry/triangle_mesh.h"

namespace surge {

struct CheckedMesh {
  TriangleMesh mesh;  // closed, consistently oriented, facing outwards
  bool flipped_inside_out = false;
};

// `source` names the mesh in messages (its file). Welds identical vertices first (weld_identical_vertices).
CheckedMesh check_mesh(TriangleMesh mesh, const std::string& source);

}  // namespace surge
