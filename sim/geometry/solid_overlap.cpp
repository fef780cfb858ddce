#include "sim/geometry/solid_overlap.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace surge {

std::optional<Vec3d> shared_volume_point(const Solid& a, const Solid& b, double resolution) {
  const Aabb box_a = a.bounds(), box_b = b.bounds();
  const Vec3d low{std::max(box_a.min.x, box_b.min.x), std::max(box_a.min.y, box_b.min.y),
                  std::max(box_a.min.z, box_b.min.z)};
  const Vec3d high{std::min(box_a.max.x, box_b.max.x), std::min(box_a.max.y, box_b.max.y),
                   std::min(box_a.max.z, box_b.max.z)};
  if (low.x >= high.x || low.y >= high.y || low.z >= high.z) return std::nullopt;
  // Sample points at cell centres; a large intersection is sampled more coarsely, at most about 128 per
  // axis, so a scene loads in milliseconds whatever its solids' size.
  const Vec3d extent = high - low;
  const double step = std::max(resolution, std::max({extent.x, extent.y, extent.z}) / 128.0);
  const auto cells = [&](double length) {
    return std::max<std::int64_t>(1, std::int64_t(std::ceil(length / step)));
  };
  const std::int64_t nx = cells(extent.x), ny = cells(extent.y), nz = cells(extent.z);
  const double depth = 0.5 * step;
  for (std::int64_t k = 0; k < nz; ++k)
    for (std::int64_t j = 0; j < ny; ++j)
      for (std::int64_t i = 0; i < nx; ++i) {
        const Vec3d p{low.x + (double(i) + 0.5) * extent.x / double(nx),
                      low.y + (double(j) + 0.5) * extent.y / double(ny),
                      low.z + (double(k) + 0.5) * extent.z / double(nz)};
        if (a.signed_distance(p) < -depth && b.signed_distance(p) < -depth) return p;
      }
  return std::nullopt;
}

}  // namespace surge
