#include "sim/geometry/mesh_check.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "sim/geometry/geometry_error.h"
#include "sim/geometry/mat3.h"

namespace surge {

namespace {

void check_vertices_finite(const TriangleMesh& mesh, const std::string& source) {
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    const Vec3d p = mesh.vertices[v];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      std::ostringstream problem;
      problem << "vertex " << v << " is not finite (" << p.x << ", " << p.y << ", " << p.z << ")";
      throw MeshError(source, problem.str());
    }
  }
}

void check_indices(const TriangleMesh& mesh, const std::string& source) {
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (std::uint32_t v : mesh.triangles[t])
      if (v >= mesh.vertices.size())
        throw MeshError(source, "triangle " + std::to_string(t) + " refers to vertex " + std::to_string(v) +
                                    " of " + std::to_string(mesh.vertices.size()));
}

void check_no_degenerate_triangle(const TriangleMesh& mesh, const std::string& source) {
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    const Vec3d a = mesh.vertices[tri[0]], b = mesh.vertices[tri[1]], c = mesh.vertices[tri[2]];
    // Zero area relative to the triangle's own size, so the test means the same at any scale: twice
    // the area against the square of the longest edge, a tolerance far above rounding (1e-16) and far
    // below any triangle a mesher would make on purpose (a 1e-6 sliver).
    const double longest2 = std::max({length_squared(b - a), length_squared(c - b), length_squared(a - c)});
    if (length(cross(b - a, c - a)) <= 1e-12 * longest2) {
      std::ostringstream problem;
      problem << "triangle " << t << " (vertices " << tri[0] << ", " << tri[1] << ", " << tri[2]
              << ") is degenerate: zero area";
      throw MeshError(source, problem.str());
    }
  }
}

// Closed: every edge shared by exactly two triangles. Consistent: those two traverse it in opposite
// directions, which is what makes "counter-clockwise from outside" mean the same on both.
void check_closed_and_consistent(const TriangleMesh& mesh, const std::string& source) {
  struct EdgeUse {
    int forward = 0, backward = 0;  // traversals from the lower vertex index to the higher, and back
    std::size_t first_triangle = 0, last_triangle = 0;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, EdgeUse> edges;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t from = mesh.triangles[t][k], to = mesh.triangles[t][(k + 1) % 3];
      EdgeUse& use = edges[{std::min(from, to), std::max(from, to)}];
      if (use.forward + use.backward == 0) use.first_triangle = t;
      use.last_triangle = t;
      (from < to ? use.forward : use.backward) += 1;
    }
  std::size_t open = 0, same_direction = 0;
  std::pair<std::uint32_t, std::uint32_t> first_open{};
  std::pair<std::size_t, std::size_t> first_clash{};
  for (const auto& [edge, use] : edges) {
    if (use.forward + use.backward != 2) {
      if (open++ == 0) first_open = edge;
    } else if (use.forward != 1) {
      if (same_direction++ == 0) first_clash = {use.first_triangle, use.last_triangle};
    }
  }
  if (open > 0) {
    std::ostringstream problem;
    problem << "mesh is not closed: " << open << " open edge" << (open == 1 ? "" : "s")
            << " (not shared by exactly two triangles), e.g. between vertices " << first_open.first << " and "
            << first_open.second;
    throw MeshError(source, problem.str());
  }
  if (same_direction > 0) {
    std::ostringstream problem;
    problem << "inconsistently oriented faces: " << same_direction << " edge"
            << (same_direction == 1 ? " is" : "s are")
            << " traversed in the same direction by both of its triangles, e.g. triangles "
            << first_clash.first << " and " << first_clash.second;
    throw MeshError(source, problem.str());
  }
}

}  // namespace

CheckedMesh check_mesh(TriangleMesh mesh, const std::string& source) {
  check_vertices_finite(mesh, source);
  if (mesh.triangles.empty()) throw MeshError(source, "no triangles");
  check_indices(mesh, source);
  weld_identical_vertices(mesh);
  check_no_degenerate_triangle(mesh, source);
  check_closed_and_consistent(mesh, source);
  CheckedMesh checked;
  const double volume = signed_volume(mesh);
  if (volume < 0.0) {
    flip_orientation(mesh);
    checked.flipped_inside_out = true;
  }
  if (!(volume != 0.0)) throw MeshError(source, "mesh encloses no volume");
  checked.mesh = std::move(mesh);
  return checked;
}

}  // namespace surge
