#include "sim/geometry/surface_tessellation.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace surge {

TriangleMesh box_surface(Vec3d center, const Mat3d& rotation, Vec3d half) {
  TriangleMesh mesh;
  // Corner k: bit 0 picks +x, bit 1 +y, bit 2 +z.
  for (int k = 0; k < 8; ++k) {
    const Vec3d local{k & 1 ? half.x : -half.x, k & 2 ? half.y : -half.y, k & 4 ? half.z : -half.z};
    mesh.vertices.push_back(center + rotation * local);
  }
  // Each face's corners counter-clockwise seen from outside, as two triangles.
  const std::array<std::array<std::uint32_t, 4>, 6> faces = {{{0, 4, 6, 2},    // -x
                                                              {1, 3, 7, 5},    // +x
                                                              {0, 1, 5, 4},    // -y
                                                              {2, 6, 7, 3},    // +y
                                                              {0, 2, 3, 1},    // -z
                                                              {4, 5, 7, 6}}};  // +z
  for (const auto& f : faces) {
    mesh.triangles.push_back({f[0], f[1], f[2]});
    mesh.triangles.push_back({f[0], f[2], f[3]});
  }
  return mesh;
}

TriangleMesh sphere_surface(Vec3d center, double radius) {
  const int rings = kRoundSegments / 2, segments = kRoundSegments;
  TriangleMesh mesh;
  // The poles once each, then the rings between them from the south up.
  mesh.vertices.push_back(center + Vec3d{0.0, 0.0, -radius});
  for (int i = 1; i < rings; ++i) {
    const double polar = std::numbers::pi * (1.0 - double(i) / rings);  // from the +z axis
    for (int j = 0; j < segments; ++j) {
      const double azimuth = 2.0 * std::numbers::pi * j / segments;
      mesh.vertices.push_back(center + radius * Vec3d{std::sin(polar) * std::cos(azimuth),
                                                      std::sin(polar) * std::sin(azimuth), std::cos(polar)});
    }
  }
  const std::uint32_t north = std::uint32_t(mesh.vertices.size());
  mesh.vertices.push_back(center + Vec3d{0.0, 0.0, radius});
  const auto at = [&](int ring, int j) { return std::uint32_t(1 + (ring - 1) * segments + (j % segments)); };
  for (int j = 0; j < segments; ++j) {
    mesh.triangles.push_back({0, at(1, j + 1), at(1, j)});
    for (int i = 1; i + 1 < rings; ++i) {
      mesh.triangles.push_back({at(i, j), at(i, j + 1), at(i + 1, j + 1)});
      mesh.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i + 1, j)});
    }
    mesh.triangles.push_back({at(rings - 1, j), at(rings - 1, j + 1), north});
  }
  return mesh;
}

TriangleMesh cylinder_surface(Vec3d center, const Mat3d& rotation, double radius, double half_height) {
  const int segments = kRoundSegments;
  TriangleMesh mesh;
  // Two rims (bottom, then top), then the centres of the end discs.
  for (double z : {-half_height, half_height})
    for (int j = 0; j < segments; ++j) {
      const double azimuth = 2.0 * std::numbers::pi * j / segments;
      mesh.vertices.push_back(center +
                              rotation * Vec3d{radius * std::cos(azimuth), radius * std::sin(azimuth), z});
    }
  const std::uint32_t bottom = std::uint32_t(mesh.vertices.size());
  mesh.vertices.push_back(center + rotation * Vec3d{0.0, 0.0, -half_height});
  mesh.vertices.push_back(center + rotation * Vec3d{0.0, 0.0, half_height});
  const std::uint32_t top = bottom + 1;
  for (int j = 0; j < segments; ++j) {
    const std::uint32_t b0 = std::uint32_t(j), b1 = std::uint32_t((j + 1) % segments);
    const std::uint32_t t0 = b0 + segments, t1 = b1 + segments;
    mesh.triangles.push_back({b0, b1, t1});
    mesh.triangles.push_back({b0, t1, t0});
    mesh.triangles.push_back({bottom, b1, b0});
    mesh.triangles.push_back({top, t0, t1});
  }
  return mesh;
}

}  // namespace surge
