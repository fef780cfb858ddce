// Weakly compressible SPH, per particle: the equations every backend runs (DESIGN.md, "Single-source
// physics"). Each function is one particle's share of one stage; the CPU backend calls them in OpenMP
// loops, the CUDA backend in kernels.
//
// Method: summation density, Tait equation of state (Becker & Teschner 2007), symmetric pressure
// gradient, Monaghan (1992) artificial viscosity, optional XSPH velocity smoothing, and Akinci et al.
// (2012) boundary particles: a wall particle b stands for the fluid volume V_b = 1 / sum_k W_bk.
#pragma once

#include <cmath>
#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/index/neighbor_loop.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/stirring_physics.h"

namespace surge {

// The arrays a stage reads, all in cell order.
struct FluidFields {
  CellIndexView index;              // positions + cell_start of the fluid
  const Vec4f* velocity = nullptr;  // [m/s]
  const float* density = nullptr;   // [kg/m^3]
  const float* pressure = nullptr;  // [Pa]
};

// rho_i = m sum_j W_ij + rho0 sum_b V_b W_ib  (Akinci et al. 2012, eq. 5 with Psi_b = rho0 V_b).
template <typename Kernel>
SURGE_HD float compute_density(const Kernel& kernel, const SphParameters& params, const GridGeometry& grid,
                               const CellIndexView& fluid, const CellIndexView& boundary, Vec3f x_i) {
  const float support2 = params.support * params.support;
  float fluid_sum = 0.0f;
  for_each_neighbor(grid, fluid, x_i, support2,
                    [&](std::uint32_t, Vec3f, float r2) { fluid_sum += kernel.value(sqrtf(r2)); });
  float boundary_sum = 0.0f;
  for_each_neighbor(grid, boundary, x_i, support2, [&](std::uint32_t b, Vec3f, float r2) {
    boundary_sum += boundary.positions[b].w * kernel.value(sqrtf(r2));
  });
  return params.particle_mass * fluid_sum + params.rest_density * boundary_sum;
}

// Tait equation (Becker & Teschner 2007, eq. 6): p = B ((rho/rho0)^gamma - 1), B = rho0 c0^2 / gamma.
// Clamped at zero: a particle at the free surface has too few neighbours, and the negative pressure
// its low summed density would give pulls the surface into clumps (tensile instability).
SURGE_HD float tait_pressure(const SphParameters& params, float rho) {
  const float p = params.tait_stiffness * (powf(rho / params.rest_density, params.tait_exponent) - 1.0f);
  return p > 0.0f ? p : 0.0f;
}

struct ParticleAcceleration {
  Vec3f acceleration{};  // [m/s^2]
  Vec3f xsph{};          // XSPH velocity correction [m/s], already scaled by epsilon
};

// Constants of the artificial viscosity term shared by the fluid and the wall parts of the force pass.
struct ViscosityConstants {
  float eta2;        // keeps the viscous term finite as r -> 0 (Monaghan 1992): 0.01 h^2 [m^2]
  float alpha_h_c0;  // alpha h c0 [m^2/s]
};
SURGE_HD ViscosityConstants viscosity_constants(const SphParameters& params) {
  const float h = 0.5f * params.support;  // smoothing length of a kernel with support 2h
  return {0.01f * h * h, params.viscosity_alpha * h * params.speed_of_sound};
}

// The force pass is three parts, so that a backend may run the fluid and the wall parts as separate
// passes (the divergence lesson, docs/lessons/4-divergence.md) and still compute the same sums in the
// same order: start_acceleration, add_fluid_acceleration, add_boundary_acceleration, finish_acceleration.
// The start holds the body forces: gravity and the stirring hand's pull.
SURGE_HD ParticleAcceleration start_acceleration(const SphParameters& params, const FluidFields& fluid,
                                                 std::uint32_t i) {
  ParticleAcceleration out;
  out.acceleration = params.gravity + stirring_acceleration(params.stirring, xyz(fluid.index.positions[i]),
                                                            xyz(fluid.velocity[i]));
  return out;
}

// Fluid neighbours j of fluid particle i.
template <typename Kernel>
SURGE_HD void add_fluid_acceleration(const Kernel& kernel, const SphParameters& params,
                                     const GridGeometry& grid, const FluidFields& fluid, std::uint32_t i,
                                     ParticleAcceleration& out) {
  const Vec3f x_i = xyz(fluid.index.positions[i]);
  const Vec3f v_i = xyz(fluid.velocity[i]);
  const float rho_i = fluid.density[i];
  const float p_over_rho2_i = fluid.pressure[i] / (rho_i * rho_i);
  const float m = params.particle_mass;
  const ViscosityConstants viscosity = viscosity_constants(params);
  const float support2 = params.support * params.support;
  for_each_neighbor(grid, fluid.index, x_i, support2, [&](std::uint32_t j, Vec3f r_ij, float r2) {
    if (j == i) return;
    const float r = sqrtf(r2);
    const Vec3f grad_w = kernel.gradient(r_ij, r);
    const float rho_j = fluid.density[j];
    // Symmetric pressure gradient: a_i -= m (p_i/rho_i^2 + p_j/rho_j^2) grad W_ij.
    float coefficient = p_over_rho2_i + fluid.pressure[j] / (rho_j * rho_j);
    const Vec3f v_j = xyz(fluid.velocity[j]);
    const float v_dot_r = dot(v_i - v_j, r_ij);
    if (v_dot_r < 0.0f) {
      // Artificial viscosity Pi_ij = -alpha c0 h (v_ij . r_ij) / (rho_bar (r^2 + eta^2)), approaching only.
      coefficient += -2.0f * viscosity.alpha_h_c0 * v_dot_r / ((rho_i + rho_j) * (r2 + viscosity.eta2));
    }
    out.acceleration -= (m * coefficient) * grad_w;
    out.xsph += (2.0f * m / (rho_i + rho_j) * kernel.value(r)) * (v_j - v_i);
  });
}

// Wall particles b near fluid particle i.
template <typename Kernel>
SURGE_HD void add_boundary_acceleration(const Kernel& kernel, const SphParameters& params,
                                        const GridGeometry& grid, const FluidFields& fluid,
                                        const CellIndexView& boundary, std::uint32_t i,
                                        ParticleAcceleration& out) {
  const Vec3f x_i = xyz(fluid.index.positions[i]);
  const Vec3f v_i = xyz(fluid.velocity[i]);
  const float rho_i = fluid.density[i];
  const float p_over_rho2_i = fluid.pressure[i] / (rho_i * rho_i);
  const ViscosityConstants viscosity = viscosity_constants(params);
  const float support2 = params.support * params.support;
  for_each_neighbor(grid, boundary, x_i, support2, [&](std::uint32_t b, Vec3f r_ib, float r2) {
    const float r = sqrtf(r2);
    const float psi_b = params.rest_density * boundary.positions[b].w;  // Akinci et al. 2012, Psi_b(rho0)
    // Pressure: the wall particle takes the fluid particle's pressure carried hydrostatically to the wall
    // particle's place, p_b = p_i - rho_i g . r_ib (the extrapolation of Adami et al. 2012, eq. 27,
    // from the one neighbour i), in the symmetric pressure term with Akinci's Psi_b for the mass.
    // With p_b = p_i alone, a wall adds no vertical pressure gradient and fluid along side walls
    // stands on too steep a profile (measured: +15 % pressure in the hydrostatic test).
    const float p_b = fmaxf(0.0f, fluid.pressure[i] - rho_i * dot(params.gravity, r_ib));
    float coefficient = p_over_rho2_i + p_b / (rho_i * rho_i);
    const float v_dot_r = dot(v_i, r_ib);
    if (v_dot_r < 0.0f) coefficient += -viscosity.alpha_h_c0 * v_dot_r / (rho_i * (r2 + viscosity.eta2));
    out.acceleration -= (psi_b * coefficient) * kernel.gradient(r_ib, r);
  });
}

SURGE_HD void finish_acceleration(const SphParameters& params, ParticleAcceleration& out) {
  out.xsph = params.xsph_epsilon * out.xsph;
}

template <typename Kernel>
SURGE_HD ParticleAcceleration compute_acceleration(const Kernel& kernel, const SphParameters& params,
                                                   const GridGeometry& grid, const FluidFields& fluid,
                                                   const CellIndexView& boundary, std::uint32_t i) {
  ParticleAcceleration out = start_acceleration(params, fluid, i);
  add_fluid_acceleration(kernel, params, grid, fluid, i, out);
  add_boundary_acceleration(kernel, params, grid, fluid, boundary, i, out);
  finish_acceleration(params, out);
  return out;
}

// Adaptive time step: the smallest of the Courant condition on the sound speed, the force condition
// (Monaghan 1992) and the viscous diffusion condition, each scaled by the Courant number.
SURGE_HD float adaptive_time_step(const SphParameters& params, float max_speed, float max_acceleration) {
  const float h = 0.5f * params.support;
  float dt = params.cfl * h / (params.speed_of_sound + max_speed);
  if (max_acceleration > 0.0f) dt = fminf(dt, params.cfl * sqrtf(h / max_acceleration));
  if (params.viscosity_alpha > 0.0f) {
    // Artificial viscosity acts like a kinematic viscosity nu = alpha h c0 / 10 (Monaghan 2005, 3D).
    const float nu = 0.1f * params.viscosity_alpha * h * params.speed_of_sound;
    dt = fminf(dt, 0.125f * h * h / nu);
  }
  return fminf(dt, params.dt_max);
}

// Symplectic Euler: v += dt a;  x += dt (v + xsph).
SURGE_HD void integrate_particle(float dt, const ParticleAcceleration& a, Vec4f& x, Vec4f& v) {
  v.x += dt * a.acceleration.x;
  v.y += dt * a.acceleration.y;
  v.z += dt * a.acceleration.z;
  x.x += dt * (v.x + a.xsph.x);
  x.y += dt * (v.y + a.xsph.y);
  x.z += dt * (v.z + a.xsph.z);
}

// 0 when the particle is sound, else the Instability code (1 = NaN/inf, 2 = left the domain): a
// particle more than one support outside the domain box has passed through a wall or an open face.
SURGE_HD int check_particle(const SphParameters& params, const Vec4f& x, const Vec4f& v) {
  const float finite_sum = x.x + x.y + x.z + v.x + v.y + v.z;
  if (!std::isfinite(finite_sum)) return 1;  // a NaN or inf in any component makes the sum one
  const float margin = params.support;
  if (x.x < params.domain_min.x - margin || x.y < params.domain_min.y - margin ||
      x.z < params.domain_min.z - margin || x.x > params.domain_max.x + margin ||
      x.y > params.domain_max.y + margin || x.z > params.domain_max.z + margin)
    return 2;
  return 0;
}

}  // namespace surge
