// Granular DEM, per grain: the equations every backend runs (DESIGN.md, "Single-source physics"). The CPU
// backend calls them in OpenMP loops, the CUDA backend in kernels.
//
// Grains are soft spheres that translate and, with [dem] rotation, spin. Arrays, all in cell order:
//   position: x, y, z [m], w = grain radius r [m]
//   velocity: x, y, z [m/s], w = grain mass m [kg]
//   angular velocity (rotation only): x, y, z [rad/s], w unused
//   id: creation index, the key of the contact history (sim/dem/contact_history.h)
// Fixed grains (walls built of grains, silo plates) sit in a second, static cell index; they have
// infinite mass and zero velocity. The faces of the domain box listed as walls are planes.
//
// One step (symplectic Euler, as most DEM codes):
//   a_i = sum_contacts F / m_i;  v_i += dt (a_i + g);  x_i += dt v_i
//   alpha_i = sum_contacts tau / I_i, I_i = 2/5 m_i r_i^2;  w_i += dt alpha_i
// Orientation is not tracked: a sphere's contacts do not depend on it.
#pragma once

#include <cmath>
#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/dem/contact_history.h"
#include "sim/dem/dem_parameters.h"
#include "sim/dem/normal_contact.h"
#include "sim/dem/rolling_resistance.h"
#include "sim/dem/tangential_friction.h"
#include "sim/dem/tangential_spring.h"
#include "sim/index/grid_geometry.h"
#include "sim/index/neighbor_loop.h"

namespace surge {

// The moving grains as the contact pass reads them.
struct DemGrainsView {
  CellIndexView index;                      // positions (w = radius) and their cells
  const Vec4f* velocity = nullptr;          // w = mass
  const Vec4f* angular_velocity = nullptr;  // null without rotation
  const std::uint32_t* id = nullptr;        // creation ids, parallel to positions
};

// s v with each product rounded on its own, never fused into a following addition: grain j's copy of a
// contact sums r_j w_j + r_i w_i where grain i's sums r_i w_i + r_j w_j, and only rounded products make
// the two sums equal to the bit (a + b = b + a in IEEE arithmetic; fma(x, y, b) and fma(u, v, a) are not).
SURGE_HD Vec3f rounded_product(float s, Vec3f v) {
#if defined(__CUDA_ARCH__)
  return {__fmul_rn(s, v.x), __fmul_rn(s, v.y), __fmul_rn(s, v.z)};
#else
  return s * v;  // x86-64 without -mfma does not contract
#endif
}

// One contact as grain i sees it. r_ij = x_i - x_j, dist = |r_ij| > 0, overlap = r_i + r_j - dist > 0.
struct GrainContact {
  Vec3f r_ij{};
  float dist = 0, overlap = 0;
  Vec3f v_ij{};                // v_i - v_j
  Vec3f spin_lever{};          // r_i w_i + r_j w_j (rotation only)
  Vec3f relative_spin{};       // w_i - w_j (rotation only)
  float m_eff = 0, r_eff = 0;  // m* and R*; m_i and r_i against a wall, m_i against a fixed grain
  float inertia_eff = 0;       // I* = I_i I_j / (I_i + I_j); I_i against a wall or fixed grain
  std::uint32_t partner = 0;   // history key (sim/dem/contact_history.h)
};

// What the contacts of grain i add up to.
struct GrainLoads {
  Vec3f force{};         // [N]
  Vec3f torque{};        // [N m]
  float normal_sum = 0;  // sum |F_n| [N]
};

// The force and torque one contact puts on grain i of radius r_i. `history` is null when the friction
// model keeps none. kSpinOrHistory = false compiles the translational, history-free models alone (see
// uses_spin_or_history).
template <bool kSpinOrHistory>
SURGE_HD void add_contact(const DemParameters& p, const GrainContact& c, float r_i,
                          GrainContactHistory* history, GrainLoads& loads) {
  const bool rotation = kSpinOrHistory && p.rotation;
  const Vec3f n = (1.0f / c.dist) * c.r_ij;
  const float v_n = dot(c.v_ij, n);
  const NormalContact normal = normal_contact(p, c.overlap, v_n, c.m_eff, c.r_eff);
  // Relative velocity of the surfaces at the contact point (sim/dem/tangential_spring.h for the sign).
  Vec3f v_c = c.v_ij;
  if (rotation) v_c -= cross(c.spin_lever, n);
  const Vec3f v_t = v_c - dot(v_c, n) * n;
  Vec3f f_t;
  if (kSpinOrHistory && p.friction_model == FrictionModel::mindlin) {
    Vec3f spring = history != nullptr ? history->find(c.partner) : Vec3f{};
    f_t = tangential_spring_force(p, n, v_t, normal.force, tangential_spring(p, c.overlap, c.m_eff, c.r_eff),
                                  spring);
    if (history != nullptr) history->keep(c.partner, spring);
  } else {
    f_t = tangential_force(p, v_t, normal.force, normal.stiffness, c.m_eff);
  }
  loads.force += normal.force * n;
  loads.force += f_t;
  // Cohesion as an attraction between touching grains, proportional to their distance.
  loads.force -= p.cohesion * c.r_ij;
  loads.normal_sum += fabsf(normal.force);
  if (rotation) {
    // The tangential force acts at the contact point, -r_i n from the centre.
    loads.torque -= r_i * cross(n, f_t);
    loads.torque += rolling_torque(p, c.relative_spin, normal.force, c.r_eff, c.inertia_eff);
  }
}

// What the contact pass gives for grain i.
struct GrainContactResult {
  // Contact acceleration (gravity excluded) in xyz; w = the mean normal stress on the grain's surface,
  // sum |F_n| / (4 pi r_i^2) [Pa], which the exports carry as "pressure".
  Vec4f acceleration;
  Vec4f angular_acceleration;  // xyz [rad/s^2] (zero without rotation); w unused
  std::uint32_t contacts = 0;  // contacts kept in the history this step (Mindlin friction only)
  std::uint32_t overflow = 0;  // contacts that found no free history slot
};

// Whether a run needs the grain_contacts<true> pass: grain spin or a contact history. Without either the
// contact pass is the stateless gather of NVIDIA's `particles` sample, and compiling it without the spin
// and history code keeps its registers and its speed (particles_box: 0.59 against 0.44 ms per step at 1M
// on the H200 with one pass for all models).
SURGE_HD bool uses_spin_or_history(const DemParameters& p) {
  return p.rotation || p.friction_model == FrictionModel::mindlin;
}

template <bool kSpinOrHistory>
SURGE_HD GrainContactResult grain_contacts(const DemParameters& p, const GridGeometry& grid,
                                           const DemGrainsView& grains, const CellIndexView& fixed,
                                           const ContactHistoryView& history_view, std::uint32_t i) {
  const bool rotation = kSpinOrHistory && p.rotation;
  const Vec4f xr_i = grains.index.positions[i];
  const Vec4f vm_i = grains.velocity[i];
  const Vec3f x_i = xyz(xr_i), v_i = xyz(vm_i);
  const float r_i = xr_i.w, m_i = vm_i.w;
  const float inertia_i = 0.4f * m_i * r_i * r_i;
  const Vec3f w_i = rotation ? xyz(grains.angular_velocity[i]) : Vec3f{};
  const bool keeping =
      kSpinOrHistory && p.friction_model == FrictionModel::mindlin && history_view.current != nullptr;
  GrainContactHistory history_of_i(history_view, keeping ? grains.id[i] : 0u);
  GrainContactHistory* history = keeping ? &history_of_i : nullptr;
  // Every grain that can touch i is within r_i + r_max, never more than one cell (2 r_max) away.
  const float reach = r_i + p.max_radius;
  GrainLoads loads;

  for_each_neighbor(grid, grains.index, x_i, reach * reach, [&](std::uint32_t j, Vec3f r_ij, float r2) {
    const Vec4f xr_j = grains.index.positions[j];
    const float r_j = xr_j.w;
    const float touch = r_i + r_j;
    // r2 = 0 is i itself, or a grain placed exactly on it, for which no normal exists.
    if (j == i || r2 >= touch * touch || r2 == 0.0f) return;
    const Vec4f vm_j = grains.velocity[j];
    const float dist = sqrtf(r2);
    GrainContact c;
    c.r_ij = r_ij;
    c.dist = dist;
    c.overlap = touch - dist;
    c.v_ij = v_i - xyz(vm_j);
    c.m_eff = m_i * vm_j.w / (m_i + vm_j.w);
    c.r_eff = r_i * r_j / touch;
    if (rotation) {
      const Vec3f w_j = xyz(grains.angular_velocity[j]);
      c.spin_lever = rounded_product(r_i, w_i) + rounded_product(r_j, w_j);
      c.relative_spin = w_i - w_j;
      const float inertia_j = 0.4f * vm_j.w * r_j * r_j;
      c.inertia_eff = inertia_i * inertia_j / (inertia_i + inertia_j);
    }
    c.partner = keeping ? grains.id[j] : 0u;
    add_contact<kSpinOrHistory>(p, c, r_i, history, loads);
  });

  if (fixed.cell_start != nullptr) {
    for_each_neighbor(grid, fixed, x_i, reach * reach, [&](std::uint32_t b, Vec3f r_ib, float r2) {
      const float r_b = fixed.positions[b].w;
      const float touch = r_i + r_b;
      if (r2 >= touch * touch || r2 == 0.0f) return;
      const float dist = sqrtf(r2);
      GrainContact c;
      c.r_ij = r_ib;
      c.dist = dist;
      c.overlap = touch - dist;
      c.v_ij = v_i;
      c.m_eff = m_i;
      c.r_eff = r_i * r_b / touch;
      c.spin_lever = r_i * w_i;
      c.relative_spin = w_i;
      c.inertia_eff = inertia_i;
      c.partner = p.fixed_partner_base + b;
      add_contact<kSpinOrHistory>(p, c, r_i, history, loads);
    });
  }

  if (p.wall_model == WallModel::contact && p.wall_mask != 0u) {
    // A plane wall is a grain of infinite mass and radius: m* = m_i, R* = r_i.
    const auto wall_pair = [&](float x, float low, float high, unsigned face_bits, Vec3f unit,
                               std::uint32_t low_face) {
      GrainContact c;
      c.v_ij = v_i;
      c.m_eff = m_i;
      c.r_eff = r_i;
      c.spin_lever = r_i * w_i;
      c.relative_spin = w_i;
      c.inertia_eff = inertia_i;
      const float to_low = x - low, to_high = high - x;
      if ((face_bits & 1u) && to_low < r_i && to_low > 0.0f) {
        c.r_ij = to_low * unit;
        c.dist = to_low;
        c.overlap = r_i - to_low;
        c.partner = kWallPartner + low_face;
        add_contact<kSpinOrHistory>(p, c, r_i, history, loads);
      }
      if ((face_bits & 2u) && to_high < r_i && to_high > 0.0f) {
        c.r_ij = -to_high * unit;
        c.dist = to_high;
        c.overlap = r_i - to_high;
        c.partner = kWallPartner + low_face + 1u;
        add_contact<kSpinOrHistory>(p, c, r_i, history, loads);
      }
    };
    wall_pair(x_i.x, p.domain_min.x, p.domain_max.x, p.wall_mask, Vec3f{1.0f, 0.0f, 0.0f}, 0u);
    wall_pair(x_i.y, p.domain_min.y, p.domain_max.y, p.wall_mask >> 2, Vec3f{0.0f, 1.0f, 0.0f}, 2u);
    wall_pair(x_i.z, p.domain_min.z, p.domain_max.z, p.wall_mask >> 4, Vec3f{0.0f, 0.0f, 1.0f}, 4u);
  }

  GrainContactResult result;
  const float inv_m = 1.0f / m_i;
  result.acceleration = {loads.force.x * inv_m, loads.force.y * inv_m, loads.force.z * inv_m,
                         loads.normal_sum / (4.0f * 3.14159265f * r_i * r_i)};
  const float inv_inertia = 1.0f / inertia_i;
  result.angular_acceleration = {loads.torque.x * inv_inertia, loads.torque.y * inv_inertia,
                                 loads.torque.z * inv_inertia, 0.0f};
  if (history != nullptr) {
    history->finish();
    result.contacts = history->contacts();
    result.overflow = history->overflow();
  }
  return result;
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

// The spin, by the same symplectic Euler: w += dt alpha.
SURGE_HD void integrate_grain_spin(const DemParameters& p, Vec4f alpha, Vec4f& w) {
  w.x += p.dt * alpha.x;
  w.y += p.dt * alpha.y;
  w.z += p.dt * alpha.z;
}

// The grain's material density m / (4/3 pi r^3) [kg/m^3] from its position (w = r) and velocity (w = m),
// which the exports and the renderer carry as "density".
SURGE_HD float grain_material_density(Vec4f position, Vec4f velocity) {
  const float r = position.w;
  return velocity.w / (4.0f / 3.0f * 3.14159265f * r * r * r);
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
