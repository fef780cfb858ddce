// Granular DEM, per grain: the equations every backend runs (DESIGN.md, "Single-source physics"). The CPU
// backend calls them in OpenMP loops, the CUDA backend in kernels.
//
// Grains are soft spheres that translate (no rotation). Arrays, all in cell order:
//   position: x, y, z [m], w = grain radius r [m]
//   velocity: x, y, z [m/s], w = grain mass m [kg]
// Fixed grains (walls built of grains, silo plates) sit in a second, static cell index; they have
// infinite mass and zero velocity. The faces of the domain box listed as walls are planes.
//
// One step (symplectic Euler, as most DEM codes):
//   a_i = sum_contacts F / m_i;  v_i += dt (a_i + g);  x_i += dt v_i
#pragma once

#include <cmath>
#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/dem/dem_parameters.h"
#include "sim/dem/normal_contact.h"
#include "sim/dem/tangential_friction.h"
#include "sim/index/grid_geometry.h"
#include "sim/index/neighbor_loop.h"

namespace surge {

// The force one contact puts on grain i, and the normal force for the contact pressure.
// r_ij = x_i - x_j, dist = |r_ij| > 0, overlap = r_i + r_j - dist > 0, v_ij = v_i - v_j.
SURGE_HD void add_contact_force(const DemParameters& p, Vec3f r_ij, float dist, float overlap, Vec3f v_ij,
                                float m_eff, float r_eff, Vec3f& force, float& normal_force_sum) {
  const Vec3f n = (1.0f / dist) * r_ij;
  const float v_n = dot(v_ij, n);
  const NormalContact normal = normal_contact(p, overlap, v_n, m_eff, r_eff);
  const Vec3f v_t = v_ij - v_n * n;
  force += normal.force * n;
  force += tangential_force(p, v_t, normal.force, normal.stiffness, m_eff);
  // Cohesion as an attraction between touching grains, proportional to their distance.
  force -= p.cohesion * r_ij;
  normal_force_sum += fabsf(normal.force);
}

// Contact acceleration of grain i (gravity excluded) in xyz; w = the mean normal stress on its surface,
// sum |F_n| / (4 pi r_i^2) [Pa], which the exports carry as "pressure".
SURGE_HD Vec4f grain_acceleration(const DemParameters& p, const GridGeometry& grid,
                                  const CellIndexView& grains, const Vec4f* velocity,
                                  const CellIndexView& fixed, std::uint32_t i) {
  const Vec4f xr_i = grains.positions[i];
  const Vec4f vm_i = velocity[i];
  const Vec3f x_i = xyz(xr_i), v_i = xyz(vm_i);
  const float r_i = xr_i.w, m_i = vm_i.w;
  // Every grain that can touch i is within r_i + r_max, never more than one cell (2 r_max) away.
  const float reach = r_i + p.max_radius;
  Vec3f force{};
  float normal_sum = 0.0f;

  for_each_neighbor(grid, grains, x_i, reach * reach, [&](std::uint32_t j, Vec3f r_ij, float r2) {
    const float r_j = grains.positions[j].w;
    const float touch = r_i + r_j;
    // r2 = 0 is i itself, or a grain placed exactly on it, for which no normal exists.
    if (j == i || r2 >= touch * touch || r2 == 0.0f) return;
    const Vec4f vm_j = velocity[j];
    const float dist = sqrtf(r2);
    const float m_eff = m_i * vm_j.w / (m_i + vm_j.w);
    add_contact_force(p, r_ij, dist, touch - dist, v_i - xyz(vm_j), m_eff, r_i * r_j / touch, force,
                      normal_sum);
  });

  if (fixed.cell_start != nullptr) {
    for_each_neighbor(grid, fixed, x_i, reach * reach, [&](std::uint32_t b, Vec3f r_ib, float r2) {
      const float r_b = fixed.positions[b].w;
      const float touch = r_i + r_b;
      if (r2 >= touch * touch || r2 == 0.0f) return;
      const float dist = sqrtf(r2);
      add_contact_force(p, r_ib, dist, touch - dist, v_i, m_i, r_i * r_b / touch, force, normal_sum);
    });
  }

  if (p.wall_model == WallModel::contact && p.wall_mask != 0u) {
    // A plane wall is a grain of infinite mass and radius: m* = m_i, R* = r_i.
    const auto wall_pair = [&](float x, float low, float high, unsigned face_bits, Vec3f unit) {
      const float to_low = x - low, to_high = high - x;
      if ((face_bits & 1u) && to_low < r_i && to_low > 0.0f)
        add_contact_force(p, to_low * unit, to_low, r_i - to_low, v_i, m_i, r_i, force, normal_sum);
      if ((face_bits & 2u) && to_high < r_i && to_high > 0.0f)
        add_contact_force(p, -to_high * unit, to_high, r_i - to_high, v_i, m_i, r_i, force, normal_sum);
    };
    wall_pair(x_i.x, p.domain_min.x, p.domain_max.x, p.wall_mask, Vec3f{1.0f, 0.0f, 0.0f});
    wall_pair(x_i.y, p.domain_min.y, p.domain_max.y, p.wall_mask >> 2, Vec3f{0.0f, 1.0f, 0.0f});
    wall_pair(x_i.z, p.domain_min.z, p.domain_max.z, p.wall_mask >> 4, Vec3f{0.0f, 0.0f, 1.0f});
  }

  const float inv_m = 1.0f / m_i;
  return {force.x * inv_m, force.y * inv_m, force.z * inv_m, normal_sum / (4.0f * 3.14159265f * r_i * r_i)};
}

// Symplectic Euler: v += dt (a + g), then x += dt v with the new velocity. Reflecting walls then clamp the
// grain inside the face and reverse its outward velocity, scaled by the wall restitution.
SURGE_HD void integrate_grain(const DemParameters& p, Vec4f a, Vec4f& x, Vec4f& v) {
  const float dt = p.dt;
  v.x += dt * (a.x + p.gravity.x);
  v.y += dt * (a.y + p.gravity.y);
  v.z += dt * (a.z + p.gravity.z);
  x.x += dt * v.x;
  x.y += dt * v.y;
  x.z += dt * v.z;
  if (p.wall_model != WallModel::reflect) return;
  const float r = x.w;
  const auto reflect = [&](float& position, float& speed, float low, float high, unsigned face_bits) {
    if ((face_bits & 1u) && position < low + r) {
      position = low + r;
      if (speed < 0.0f) speed *= -p.wall_restitution;
    }
    if ((face_bits & 2u) && position > high - r) {
      position = high - r;
      if (speed > 0.0f) speed *= -p.wall_restitution;
    }
  };
  reflect(x.x, v.x, p.domain_min.x, p.domain_max.x, p.wall_mask);
  reflect(x.y, v.y, p.domain_min.y, p.domain_max.y, p.wall_mask >> 2);
  reflect(x.z, v.z, p.domain_min.z, p.domain_max.z, p.wall_mask >> 4);
}

// 0 when the grain is fine; 1 (Instability::nan_value) for a non-finite state; 2 (left_domain) when its
// centre is more than a radius beyond a face of the domain: through a wall, or out of an open face.
SURGE_HD int check_grain(const DemParameters& p, Vec4f x, Vec4f v) {
  const float finite_sum = x.x + x.y + x.z + v.x + v.y + v.z;
  if (!std::isfinite(finite_sum)) return 1;  // a NaN or inf in any component makes the sum one
  const float r = x.w;
  if (x.x < p.domain_min.x - r || x.x > p.domain_max.x + r || x.y < p.domain_min.y - r ||
      x.y > p.domain_max.y + r || x.z < p.domain_min.z - r || x.z > p.domain_max.z + r)
    return 2;
  return 0;
}

}  // namespace surge
