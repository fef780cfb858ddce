// A triangle mesh's topology for the surface-mesh tests (CPU and GPU): whether every directed edge appears
// once (oriented) with its reverse (closed), and the Euler characteristic V - E + F (2 for a sphere).
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "sim/geometry/triangle_mesh.h"

namespace surge {

struct Topology {
  bool closed = true, oriented = true;
  long euler = 0;
};

inline Topology topology(const TriangleMesh& mesh) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
  for (const auto& t : mesh.triangles)
    for (int e = 0; e < 3; ++e) ++directed[{t[e], t[(e + 1) % 3]}];
  Topology result;
  long edges = 0;
  for (const auto& [edge, count] : directed) {
    if (count != 1) result.oriented = false;
    if (directed.find({edge.second, edge.first}) == directed.end()) result.closed = false;
    if (edge.first < edge.second) ++edges;
  }
  result.euler = long(mesh.vertices.size()) - edges + long(mesh.triangles.size());
  return result;
}

}  // namespace surge
