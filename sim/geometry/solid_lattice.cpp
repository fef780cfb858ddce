#include "sim/geometry/solid_lattice.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/geometry/geometry_error.h"

namespace surge {

namespace {

Vec3d to_double(Vec3f v) {
  return {double(v.x), double(v.y), double(v.z)};
}

// Lattice indices whose sites may fall in [lo, hi], one extra either side for rounding.
void index_range(double lo, double hi, double origin, double spacing, long& first, long& last) {
  first = long(std::floor((lo - origin) / spacing)) - 1;
  last = long(std::ceil((hi - origin) / spacing)) + 1;
}

}  // namespace

long even_steps(double length, double spacing) {
  return std::max(1L, std::lround(length / spacing));
}

SiteLattice fitted_lattice(const Solid& solid, double spacing) {
  if (!(spacing > 0.0) || !std::isfinite(spacing)) throw GeometryError("lattice spacing must be > 0");
  const Aabb box = solid.bounds();
  const Vec3d extent = box.extent();
  const auto step = [&](double length) { return length / double(even_steps(length, spacing)); };
  const Vec3d steps{step(extent.x), step(extent.y), step(extent.z)};
  return {box.min + 0.5 * steps, steps};
}

std::vector<Vec3f> sample_solid_lattice(const Solid& solid, double spacing, int layers,
                                        Vec3d lattice_origin) {
  if (!(spacing > 0.0) || !std::isfinite(spacing)) throw GeometryError("lattice spacing must be > 0");
  if (layers < 1) throw GeometryError("expected at least one layer of boundary particles");
  return sample_solid_lattice(solid, SiteLattice{lattice_origin, {spacing, spacing, spacing}},
                              layers * spacing);
}

std::vector<Vec3f> sample_solid_lattice(const Solid& solid, const SiteLattice& lattice, double depth) {
  const Aabb box = solid.bounds();
  long first[3]{}, last[3]{};
  index_range(box.min.x, box.max.x, lattice.origin.x, lattice.step.x, first[0], last[0]);
  index_range(box.min.y, box.max.y, lattice.origin.y, lattice.step.y, first[1], last[1]);
  index_range(box.min.z, box.max.z, lattice.origin.z, lattice.step.z, first[2], last[2]);
  const long slices = last[2] - first[2] + 1;
  if (double(slices) * double(last[1] - first[1] + 1) * double(last[0] - first[0] + 1) > 1e10)
    throw GeometryError("the solid spans more than 1e10 lattice sites: expected a larger spacing");

  // One vector per z slice, joined in order: parallel, and the same order on any number of threads.
  std::vector<std::vector<Vec3f>> per_slice(std::size_t(std::max(0L, slices)));
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t s = 0; s < std::int64_t(slices); ++s) {
    const long k = first[2] + long(s);
    for (long j = first[1]; j <= last[1]; ++j)
      for (long i = first[0]; i <= last[0]; ++i) {
        const Vec3f site = lattice.site(i, j, k);
        const Vec3d p = to_double(site);
        // The distance first: for a mesh it prunes most triangles, and most sites fail it.
        if (solid.surface_distance(p, depth) <= depth && solid.contains(p))
          per_slice[std::size_t(s)].push_back(site);
      }
  }
  std::vector<Vec3f> sites;
  for (const auto& slice : per_slice) sites.insert(sites.end(), slice.begin(), slice.end());
  return sites;
}

bool deep_inside(const Solid& solid, Vec3f site, double depth) {
  const Vec3d p = to_double(site);
  return solid.surface_distance(p, depth) > depth && solid.contains(p);
}

bool fluid_site_blocked(const Solid& solid, Vec3f site, double clearance) {
  const Vec3d p = to_double(site);
  const double keep_from = clearance * (1.0 - 1e-5);
  if (!solid.bounds().padded(keep_from).contains(p)) return false;
  return solid.surface_distance(p, keep_from) < keep_from || solid.contains(p);
}

}  // namespace surge
