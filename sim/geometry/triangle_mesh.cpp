#include "sim/geometry/triangle_mesh.h"

#include <map>
#include <tuple>
#include <utility>

namespace surge {

void weld_identical_vertices(TriangleMesh& mesh) {
  // Ordered by exact coordinates: only bit-identical positions merge (-0.0 and 0.0 compare equal, as
  // they should); nearly equal ones stay apart and show up as open edges, which is the honest report.
  std::map<std::tuple<double, double, double>, std::uint32_t> index_of;
  std::vector<Vec3d> welded;
  for (auto& triangle : mesh.triangles)
    for (std::uint32_t& v : triangle) {
      const Vec3d p = mesh.vertices[v];
      const auto [it, added] = index_of.try_emplace({p.x, p.y, p.z}, std::uint32_t(welded.size()));
      if (added) welded.push_back(p);
      v = it->second;
    }
  mesh.vertices = std::move(welded);
}

double signed_volume(const TriangleMesh& mesh) {
  // Sum of the tetrahedra from the first vertex to each triangle (divergence theorem); measuring from a
  // vertex of the mesh rather than the origin keeps a mesh far from the origin from cancelling digits.
  if (mesh.vertices.empty()) return 0.0;
  const Vec3d o = mesh.vertices.front();
  double six_volume = 0.0;
  for (const auto& t : mesh.triangles)
    six_volume += dot(mesh.vertices[t[0]] - o, cross(mesh.vertices[t[1]] - o, mesh.vertices[t[2]] - o));
  return six_volume / 6.0;
}

void flip_orientation(TriangleMesh& mesh) {
  for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
}

}  // namespace surge
