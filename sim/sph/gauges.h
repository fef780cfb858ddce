// The gauges' sums (gauge.h), written once for both executors and taken where the particles live; only the
// values leave. FluidSolver::sample_gauges runs sample_gauge for each gauge, one thread a gauge, on the CPU;
// on the GPU one thread a sum (gauge_slot_sums: a level gauge's fluid fraction at one height of its scan, a
// pressure or velocity gauge's Shepard sums), then one thread a gauge for its values (gauge_from_sums).
//
//   pressure   p(x) = sum_j V_j W(x - x_j) [p_j + rho_j g . (x - x_j)] / sum_j V_j W(x - x_j),  V_j = m /
//   rho_j
//              A Shepard (kernel-corrected) average over the fluid neighbours, so a gauge on a wall, where
//              half the support is empty, still reads a pressure and not half of one; each neighbour's
//              pressure is carried hydrostatically to the gauge point, as the solvers carry it to their wall
//              particles (Adami et al. 2012, eq. 27), so a floor gauge reads the floor's pressure rather than
//              that of the particles' mean height above it.
//   velocity   u(x) = sum_j V_j W(x - x_j) v_j / sum_j V_j W(x - x_j)
//   level      on the vertical line (x, y, z0..z1), the highest z where the kernel-interpolated density ratio
//              phi(z) = sum_j m W(x - x_j) / rho0 exceeds 0.5 (1 inside the fluid, about 0.5 at a free
//              surface, as DualSPHysics' level gauges take it); scanned down from z1 in steps of a quarter
//              spacing and interpolated linearly between the two samples either side of 0.5; z0 when the
//              line is dry, z1 when it is submerged.
//
// Where no fluid particle is within the support, pressure and velocity read 0 (a dry gauge). On several
// ranks the same sums are taken in two halves (the end of this file).
//
// The gauges read the particles as the last step left them: positions and velocities at the step's end,
// density and pressure as that step computed them (at its start), through the cell index of that step.
// Particles have moved since the index was built (up to a skin in the hybrid-overlap mode), so the cells
// visited reach one cell beyond the support.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/index/neighbor_loop.h"
#include "sim/sph/gauge.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// What a gauge reads of the fluid: positions through the cell index (no neighbour lists), velocities,
// densities and pressures in the same order.
struct GaugeFields {
  CellIndexView fluid;
  const Vec4f* velocity = nullptr;
  const float* density = nullptr;
  const float* pressure = nullptr;
};

// visit(j, r2) for every particle j of `index` with |x - x_j|^2 < support2, looking `ring` cells beyond x's
// cell in each direction (for_each_neighbor looks one).
template <typename Visit>
SURGE_HD void for_each_particle_near(const GridGeometry& grid, const CellIndexView& index, Vec3f x, int ring,
                                     float support2, Visit&& visit) {
  const int cx = grid.cell_x(x.x), cy = grid.cell_y(x.y), cz = grid.cell_z(x.z);
  const int x_first = cx - ring > 0 ? cx - ring : 0;
  const int x_last = cx + ring < grid.nx ? cx + ring : grid.nx - 1;
  for (int z = cz - ring; z <= cz + ring; ++z) {
    if (z < 0 || z >= grid.nz) continue;
    for (int y = cy - ring; y <= cy + ring; ++y) {
      if (y < 0 || y >= grid.ny) continue;
      const std::uint32_t begin = index.cell_start[grid.key(x_first, y, z)];
      const std::uint32_t end = index.cell_start[grid.key(x_last, y, z) + 1];
      for (std::uint32_t k = begin; k < end; ++k) {
        const std::uint32_t j = index.sorted_order == nullptr ? k : index.sorted_order[k];
        const Vec4f p = index.positions[j];
        const Vec3f r{x.x - p.x, x.y - p.y, x.z - p.z};
        const float r2 = length_squared(r);
        if (r2 < support2) visit(j, r, r2);
      }
    }
  }
}

// Cells beyond the gauge point's own: one support, plus one cell for the particles' drift since the index.
SURGE_HD int gauge_ring(const GridGeometry& grid, float support) {
  return int(ceilf(support * grid.inv_cell_size - 1e-4f)) + 1;
}

// phi(x) = sum_j m W(x - x_j) / rho0: the level gauge's fluid fraction.
template <typename Kernel>
SURGE_HD float fluid_fraction(const Kernel& kernel, const SphParameters& p, const GridGeometry& grid,
                              const GaugeFields& fields, Vec3f x, int ring) {
  float sum = 0.0f;
  for_each_particle_near(grid, fields.fluid, x, ring, p.support * p.support,
                         [&](std::uint32_t, Vec3f, float r2) { sum += kernel.value(sqrtf(r2)); });
  return sum * p.particle_mass / p.rest_density;
}

// The level gauge's scan (header comment): the highest z on (x, y, z0..z1) with phi(z) > 0.5, where
// phi_at(k, z) is phi at the k-th height of the scan, z1 first, then down a quarter spacing at a time to z0.
template <typename FractionAt>
SURGE_HD float level_crossing(float spacing, float z_bottom, float z_top, FractionAt&& phi_at) {
  const float dz = 0.25f * spacing;
  std::uint32_t k = 0;
  float z_above = z_top;
  float phi_above = phi_at(k, z_top);
  if (phi_above > 0.5f) return z_top;
  while (z_above > z_bottom) {
    const float z = z_above - dz > z_bottom ? z_above - dz : z_bottom;
    const float phi = phi_at(++k, z);
    if (phi > 0.5f) return z + (z_above - z) * (phi - 0.5f) / (phi - phi_above);
    z_above = z;
    phi_above = phi;
  }
  return z_bottom;
}

// The heights the scan visits on a dry line, which are all of them: phi = 0 never crosses.
SURGE_HD std::uint32_t level_height_count(float spacing, float z_bottom, float z_top) {
  std::uint32_t count = 0;
  level_crossing(spacing, z_bottom, z_top, [&](std::uint32_t, float) {
    ++count;
    return 0.0f;
  });
  return count;
}

template <typename Kernel>
SURGE_HD float water_level(const Kernel& kernel, const SphParameters& p, const GridGeometry& grid,
                           const GaugeFields& fields, Vec3f bottom, float z_top, int ring) {
  return level_crossing(p.spacing, bottom.z, z_top, [&](std::uint32_t, float z) {
    return fluid_fraction(kernel, p, grid, fields, Vec3f{bottom.x, bottom.y, z}, ring);
  });
}

// A pressure or velocity gauge's Shepard sums at x: the weights sum_j V_j W_j, and the weighted pressure
// (carried hydrostatically) or velocity.
struct ShepardSums {
  float weight = 0.0f, pressure = 0.0f;
  Vec3f velocity{};
};

template <typename Kernel>
SURGE_HD ShepardSums shepard_sums(const Kernel& kernel, const SphParameters& p, const GridGeometry& grid,
                                  const GaugeFields& fields, GaugeKind kind, Vec3f x, int ring) {
  ShepardSums sums;
  for_each_particle_near(grid, fields.fluid, x, ring, p.support * p.support,
                         [&](std::uint32_t j, Vec3f r, float r2) {
                           const float rho_j = fields.density[j] > 0.0f ? fields.density[j] : p.rest_density;
                           const float w = p.particle_mass / rho_j * kernel.value(sqrtf(r2));
                           sums.weight += w;
                           if (kind == GaugeKind::pressure) {
                             // r = x - x_j: the hydrostatic carry p_j + rho_j g . (x - x_j).
                             sums.pressure += w * (fields.pressure[j] + rho_j * dot(p.gravity, r));
                           } else {
                             sums.velocity = sums.velocity + w * xyz(fields.velocity[j]);
                           }
                         });
  return sums;
}

// The Shepard average: one value for a pressure gauge, three for a velocity gauge; 0 where no fluid particle
// is within the support.
SURGE_HD void shepard_average(GaugeKind kind, const ShepardSums& sums, float* out) {
  const float inverse = sums.weight > 0.0f ? 1.0f / sums.weight : 0.0f;
  if (kind == GaugeKind::pressure) {
    out[0] = sums.pressure * inverse;
  } else {
    out[0] = sums.velocity.x * inverse;
    out[1] = sums.velocity.y * inverse;
    out[2] = sums.velocity.z * inverse;
  }
}

// Writes the gauge's gauge_value_count(kind) values at values[probe.first_value...].
template <typename Kernel>
SURGE_HD void sample_gauge(const Kernel& kernel, const SphParameters& p, const GridGeometry& grid,
                           const GaugeFields& fields, const GaugeProbe& probe, float* values /* out */) {
  if (probe.kind == GaugeKind::force || probe.kind == GaugeKind::body)
    return;  // the solids' (solid_bodies.h)
  const int ring = gauge_ring(grid, p.support);
  float* out = values + probe.first_value;
  if (probe.kind == GaugeKind::level) {
    out[0] = water_level(kernel, p, grid, fields, probe.point, probe.z_top, ring);
    return;
  }
  shepard_average(probe.kind, shepard_sums(kernel, p, grid, fields, probe.kind, probe.point, ring), out);
}

// ---- On ranks (sim/distributed/, docs/multi-rank.md) ----
//
// A rank holds only part of the fluid, so a gauge is sampled in two halves: each rank's sums over the fluid
// particles it owns (`fields` index those alone, so a halo copy is never counted twice), added over the
// ranks, and the gauge's value from the totals, by the same quotient and scan as sample_gauge. The sums:
// a pressure gauge's weight and weighted pressure; a velocity gauge's weight and weighted velocity; a level
// gauge's phi at every height of its scan (a rank cannot stop at the crossing: its phi is a part); a force
// gauge's six force and moment sums (SolidBodies sums them over the fluid its solver counts).
SURGE_HD std::uint32_t gauge_sum_count(const GaugeProbe& probe, float spacing) {
  switch (probe.kind) {
    case GaugeKind::pressure:
      return 2u;
    case GaugeKind::velocity:
      return 4u;
    case GaugeKind::level:
      return level_height_count(spacing, probe.point.z, probe.z_top);
    case GaugeKind::force:
      return 6u;
    default:
      return 0u;  // a body gauge reads its body's state, which every rank holds whole
  }
}

// A pressure or velocity gauge's Shepard sums as its gauge_sum_count values: the weight, then the weighted
// pressure or the three weighted velocity components.
SURGE_HD void store_shepard_sums(GaugeKind kind, const ShepardSums& s, double* sums /* out */) {
  sums[0] = s.weight;
  if (kind == GaugeKind::pressure) {
    sums[1] = s.pressure;
  } else {
    sums[1] = s.velocity.x;
    sums[2] = s.velocity.y;
    sums[3] = s.velocity.z;
  }
}

// This rank's sums of a pressure, velocity or level gauge, into sums[0 .. gauge_sum_count).
template <typename Kernel>
SURGE_HD void gauge_sums(const Kernel& kernel, const SphParameters& p, const GridGeometry& grid,
                         const GaugeFields& fields, const GaugeProbe& probe, double* sums /* out */) {
  const int ring = gauge_ring(grid, p.support);
  if (probe.kind == GaugeKind::level) {
    const Vec3f bottom = probe.point;
    level_crossing(p.spacing, bottom.z, probe.z_top, [&](std::uint32_t k, float z) {
      sums[k] = fluid_fraction(kernel, p, grid, fields, Vec3f{bottom.x, bottom.y, z}, ring);
      return 0.0f;  // every height: the crossing is found in the totals
    });
    return;
  }
  if (probe.kind != GaugeKind::pressure && probe.kind != GaugeKind::velocity) return;
  store_shepard_sums(probe.kind, shepard_sums(kernel, p, grid, fields, probe.kind, probe.point, ring), sums);
}

// ---- One thread a sum (the GPU's FluidSolver::sample_gauges) ----
//
// A level gauge's scan in one thread (sample_gauge) visits every height from its top down to the water, each
// a search of (2 ring + 1)^2 rows of cells: on SPHERIC Test 2's 1 m lines at dp 0.01 m with cells of half a
// support, some 180 heights above the water and about 2,700 candidates at each wet one, one dependent load
// after another in a single GPU thread. So on the GPU each sum has its own thread: slot k of gauge g, the
// gauge's sums padded to `stride` (the most any gauge has), a level gauge's slot k its fraction at the k-th
// height of the scan. The values made from them are sample_gauge's, bit for bit: the same fractions, the same
// scan over them (the heights below the crossing are computed for nothing, in parallel). The CPU keeps the
// scan in one thread, which stops at the water.

// The k-th height of a level gauge's scan (k = 0: z_top) into *height, as level_crossing visits them; false
// where the scan has k heights or fewer.
SURGE_HD bool level_scan_height(float spacing, float z_bottom, float z_top, std::uint32_t k, float* height) {
  bool found = false;
  level_crossing(spacing, z_bottom, z_top, [&](std::uint32_t i, float z) {
    if (i == k) {
      *height = z;
      found = true;
    }
    return 0.0f;
  });
  return found;
}

// Slot k of the probe's sums into sums[k] (a pressure or velocity gauge's whole sums from slot 0).
template <typename Kernel>
SURGE_HD void gauge_slot_sums(const Kernel& kernel, const SphParameters& p, const GridGeometry& grid,
                              const GaugeFields& fields, const GaugeProbe& probe, std::uint32_t k,
                              double* sums /* out */) {
  const int ring = gauge_ring(grid, p.support);
  if (probe.kind == GaugeKind::level) {
    float z = 0.0f;
    if (!level_scan_height(p.spacing, probe.point.z, probe.z_top, k, &z)) return;
    sums[k] = fluid_fraction(kernel, p, grid, fields, Vec3f{probe.point.x, probe.point.y, z}, ring);
    return;
  }
  if (k != 0 || (probe.kind != GaugeKind::pressure && probe.kind != GaugeKind::velocity)) return;
  store_shepard_sums(probe.kind, shepard_sums(kernel, p, grid, fields, probe.kind, probe.point, ring), sums);
}

// The gauge's values at values[probe.first_value...] from its sums (on ranks, added over every rank).
SURGE_HD void gauge_from_sums(const GaugeProbe& probe, float spacing, const double* sums,
                              float* values /* out */) {
  float* out = values + probe.first_value;
  switch (probe.kind) {
    case GaugeKind::level:
      out[0] = level_crossing(spacing, probe.point.z, probe.z_top,
                              [&](std::uint32_t k, float) { return float(sums[k]); });
      return;
    case GaugeKind::pressure:
    case GaugeKind::velocity: {
      ShepardSums s;
      s.weight = float(sums[0]);
      if (probe.kind == GaugeKind::pressure) {
        s.pressure = float(sums[1]);
      } else {
        s.velocity = Vec3f{float(sums[1]), float(sums[2]), float(sums[3])};
      }
      shepard_average(probe.kind, s, out);
      return;
    }
    case GaugeKind::force:
      for (std::uint32_t k = 0; k < gauge_value_count(GaugeKind::force); ++k) out[k] = float(sums[k]);
      return;
    default:
      return;
  }
}

}  // namespace surge
