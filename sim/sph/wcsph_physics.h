// Weakly compressible SPH, per particle: the equations every backend runs (DESIGN.md, "Single-source
// physics"). Each function is one particle's share of one stage; the CPU backend calls them in OpenMP
// loops, the CUDA backend in kernels.
//
// Method: summation density, or (continuity_density) density integrated from the continuity equation
// with delta-SPH density diffusion (Molteni & Colagrossi 2009) and the hydrostatic correction of
// Fourtakas et al. 2019; Tait equation of state (Becker & Teschner 2007), symmetric pressure
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
  CellIndexView index;  // positions + cell_start of the fluid
  // xyz: velocity [m/s]; w: the pressure term p / rho^2 [m^5/(kg s^2)] of this step's equation of state
  // (set_equation_of_state). The force pass loads v_j as one float4 anyway, so p_j / rho_j^2 comes with it:
  // no division and no fourth load per neighbour pair.
  const Vec4f* velocity = nullptr;
  const float* density = nullptr;   // [kg/m^3]
  const float* pressure = nullptr;  // [Pa]
  // Continuity density: the equation-of-state stage has copied each particle's density into its position's w
  // (the solver's compute_pressure), so a force pair takes rho_j from the position the neighbour search has
  // loaded already, not by a load of its own from `density`.
  bool density_in_position_w = false;
};

// rho_i = m sum_j W_ij + rho0 sum_b V_b W_ib  (Akinci et al. 2012, eq. 5 with Psi_b = rho0 V_b).
template <typename Kernel>
SURGE_HD float compute_density(const Kernel& kernel, const SphParameters& params, const GridGeometry& grid,
                               const CellIndexView& fluid, const CellIndexView& boundary, Vec3f x_i) {
  const float support2 = params.support * params.support;
  float fluid_sum = 0.0f;
  for_each_neighbor(grid, fluid, x_i, support2, [&](std::uint32_t, Vec3f, float r2) {
    fluid_sum += kernel.value(distance_from_squared(r2));
  });
  float boundary_sum = 0.0f;
  for_each_neighbor(grid, boundary, x_i, support2, [&](std::uint32_t b, Vec3f, float r2) {
    boundary_sum += boundary.positions[b].w * kernel.value(distance_from_squared(r2));
  });
  return params.particle_mass * fluid_sum + params.rest_density * boundary_sum;
}

// Tait equation (Becker & Teschner 2007, eq. 6): p = B ((rho/rho0)^gamma - 1), B = rho0 c0^2 / gamma.
// Summation density clamps it at zero: a particle at the free surface has too few neighbours, and the
// negative pressure its low summed density would give pulls the surface into clumps (tensile instability).
// Continuity density keeps the tension, as delta-SPH (Molteni & Colagrossi 2009) and DualSPHysics do: its
// density is not deficient at a free surface, so the clamp's reason is gone, and with the clamp nothing
// pulls a density below rho0 back up. The dam break's release and impact waves then left the fluid spongy
// (rho down to 0.42 rho0 at 1,500 particles, 0.38 rho0 in SPHERIC Test 2 at 30k), a particle had to be
// compressed back to rho0 before it pushed on anything, and the one-particle film running along the floor
// into the far corner of SPHERIC Test 2 sank into the floor: 1.4 spacings deep at 30k by t = 1.2 s, and
// through it on the GPU at t = 0.92 s (84k). With the tension the 30k run's densities stay within 1.1 % of
// rho0 and no particle goes further past the floor's face than 0.2 spacings, as with summation density.
// (The walls still only push: add_boundary_acceleration floors p_b at zero.)
SURGE_HD float tait_pressure(const SphParameters& params, float rho) {
  const float p = params.tait_stiffness * (powf(rho / params.rest_density, params.tait_exponent) - 1.0f);
  return p > 0.0f || params.continuity_density ? p : 0.0f;
}

// The equation-of-state stage's outputs for one particle of density rho: its pressure, and the pressure term
// p / rho^2 in its velocity's w (FluidFields), which every force pair of it would otherwise divide out again.
SURGE_HD void set_equation_of_state(const SphParameters& params, float rho, float& pressure,
                                    Vec4f& velocity) {
  pressure = tait_pressure(params, rho);
  velocity.w = pressure / (rho * rho);
}

struct ParticleAcceleration {
  Vec3f acceleration{};  // [m/s^2]
  Vec3f xsph{};          // XSPH velocity correction [m/s], already scaled by epsilon
};

// Where the force pass leaves each particle's ParticleAcceleration for the integration: the acceleration, and
// the XSPH correction only while XSPH is on. Without it (xsph null) the correction is zero and its 12 bytes a
// particle are not kept: at a billion particles they are 11 GiB
// (docs/perf/2026-12-04-gpu-neighbour-lists.md).
struct AccelerationArrays {
  Vec3f* acceleration = nullptr;
  Vec3f* xsph = nullptr;  // null: XSPH off (xsph_epsilon 0 since the solver was made)
  SURGE_HD void store(std::uint32_t i, const ParticleAcceleration& a) const {
    acceleration[i] = a.acceleration;
    if (xsph != nullptr) xsph[i] = a.xsph;
  }
  SURGE_HD ParticleAcceleration load(std::uint32_t i) const {
    return {acceleration[i], xsph != nullptr ? xsph[i] : Vec3f{}};
  }
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

// What a force pair's hook gets besides j: the pair's numbers the force terms have computed already.
struct ForcePair {
  Vec3f r_ij;             // x_i - x_j [m]
  float r2;               // |r_ij|^2 [m^2]
  float gradient_factor;  // grad_i W_ij = gradient_factor r_ij (Kernel::gradient_factor)
  float v_dot_r;          // (v_i - v_j) . r_ij [m^2/s]
  float rho_j;            // [kg/m^3]; a wall particle's hook does not use it
};

// A pair hook that adds nothing: the summation-density force pass.
struct NoPairTerm {
  template <typename... Args>
  SURGE_HD void operator()(Args&&...) const {}
};

// XSPH (Monaghan 1989): out.xsph += sum_j 2 m / (rho_i + rho_j) W_ij (v_j - v_i), over i's fluid neighbours
// in the order the force loop visits them (finish_acceleration scales it by epsilon).
template <typename Kernel>
SURGE_HD void add_xsph_velocity(const Kernel& kernel, const SphParameters& params, const GridGeometry& grid,
                                const FluidFields& fluid, std::uint32_t i, ParticleAcceleration& out) {
  const Vec3f x_i = xyz(fluid.index.positions[i]);
  const Vec3f v_i = xyz(fluid.velocity[i]);
  const float rho_i = fluid.density[i];
  const float m = params.particle_mass;
  for_each_neighbor(
      grid, fluid.index, x_i, params.support * params.support, [&](std::uint32_t j, Vec3f, float r2) {
        if (j == i) return;
        const float rho_j = fluid.density[j];
        out.xsph += (2.0f * m / (rho_i + rho_j) * kernel.value(sqrtf(r2))) * (xyz(fluid.velocity[j]) - v_i);
      });
}

// Fluid neighbours j of fluid particle i. `pair(j, ForcePair)` runs for every j != i after the force terms,
// so the continuity pass (add_fluid_rates) adds its sums in the same neighbour visit while the acceleration
// is computed exactly as without it.
//
// The pair's cost is the GPU's inner loop (WCSPH's force pass is bound by instructions, not by memory):
// p_j / rho_j^2 comes precomputed in v_j's w, the gradient is a factor of r_ij from r^2 with one reciprocal
// square root, the viscous term is taken without a branch and divided by fast_divide, and the sum keeps m
// out until the end.
template <typename Kernel, typename Pair>
SURGE_HD void add_fluid_acceleration(const Kernel& kernel, const SphParameters& params,
                                     const GridGeometry& grid, const FluidFields& fluid, std::uint32_t i,
                                     ParticleAcceleration& out, Pair&& pair) {
  const Vec3f x_i = xyz(fluid.index.positions[i]);
  const Vec4f v_i = fluid.velocity[i];
  const float p_over_rho2_i = v_i.w;
  const float rho_i = fluid.density[i];
  const float m = params.particle_mass;
  const ViscosityConstants viscosity = viscosity_constants(params);
  const float support2 = params.support * params.support;
  const bool density_in_w = fluid.density_in_position_w;
  Vec3f sum{};  // sum_j (p_i/rho_i^2 + p_j/rho_j^2 + Pi_ij) grad W_ij
  for_each_neighbor_with_w(
      grid, fluid.index, x_i, support2, [&](std::uint32_t j, Vec3f r_ij, float r2, float w_j) {
        if (j == i) return;
        const float gradient_factor = kernel.gradient_factor(r2);
        const Vec4f v_j = fluid.velocity[j];
        const float rho_j = density_in_w ? w_j : fluid.density[j];
        const float v_dot_r = dot(xyz(v_i) - xyz(v_j), r_ij);
        // Artificial viscosity Pi_ij = -alpha c0 h (v_ij . r_ij) / (rho_bar (r^2 + eta^2)), approaching pairs
        // only (v_ij . r_ij < 0; a receding pair adds a zero).
        const float viscous = fast_divide(-2.0f * viscosity.alpha_h_c0 * fminf(v_dot_r, 0.0f),
                                          (rho_i + rho_j) * (r2 + viscosity.eta2));
        // Symmetric pressure gradient: a_i -= m (p_i/rho_i^2 + p_j/rho_j^2 + Pi_ij) grad W_ij.
        sum += ((p_over_rho2_i + v_j.w + viscous) * gradient_factor) * r_ij;
        pair(j, ForcePair{r_ij, r2, gradient_factor, v_dot_r, rho_j});
      });
  out.acceleration -= m * sum;
  // XSPH's sum costs a kernel value and a division a pair; finish_acceleration scales it by epsilon, so with
  // epsilon 0 (the default, and every scene in scenes/) it is not summed: the same result to the bit, as
  // x += dt (v + 0 xsph) is x += dt v. It takes a neighbour visit of its own: summed inside the loop above,
  // its three running sums held registers through every pair of every run, XSPH or not (the rates pass then
  // spilled); here they live only in the runs that ask for it. The same test for every particle: no
  // divergence on the GPU.
  if (params.xsph_epsilon != 0.0f) add_xsph_velocity(kernel, params, grid, fluid, i, out);
}
template <typename Kernel>
SURGE_HD void add_fluid_acceleration(const Kernel& kernel, const SphParameters& params,
                                     const GridGeometry& grid, const FluidFields& fluid, std::uint32_t i,
                                     ParticleAcceleration& out) {
  add_fluid_acceleration(kernel, params, grid, fluid, i, out, NoPairTerm{});
}

// One wall pair's pressure and viscous term: fluid particle i (pressure term p_i / rho_i^2, density rho_i
// given as 1 / rho_i, velocity relative to the wall particle v_ib) gains a_i -=
// boundary_pair_coefficient(...) grad_i W_ib from wall particle b of volume V_b at r_ib = x_i - x_b. The wall
// particle, if a body's, feels the reaction +m_i times that: the body's force (sim/sph/solid_bodies.h) sums
// this same function, so action and reaction are one number.
//
// Pressure: the wall particle takes the fluid particle's pressure carried hydrostatically to the wall
// particle's place, p_b = p_i - rho_i g . r_ib (the extrapolation of Adami et al. 2012, eq. 27, from the one
// neighbour i), in the symmetric pressure term with Akinci's Psi_b = rho0 V_b for the mass. With p_b = p_i
// alone, a wall adds no vertical pressure gradient and fluid along side walls stands on too steep a profile
// (measured: +15 % pressure in the hydrostatic test). Viscosity: Monaghan's term on the velocity relative to
// the wall particle, so a moving solid drags the fluid with it.
// On a free-slip wall (`slip`, on_slip_wall) the viscous term is left out: the wall only pushes.
// The symmetric term p_i / rho_i^2 + p_b / rho_i^2 is taken as p_i / rho_i^2 + max(0, p_i / rho_i^2 - g .
// r_ib / rho_i): the same, with the per-particle p_i / rho_i^2 and 1 / rho_i in place of two divisions a
// pair. The particle's own p_i is not floored: water in gauge tension stays on a wall (the atmosphere presses
// it there). Flooring it too was tried (docs/perf/2026-12-04-continuity-graphics.md): the dam break with
// continuity density still went unstable, in its spray instead of at a wall, and the 4-wide piston flume's
// free-slip wave then decayed faster than the no-slip one (0.59 against 0.45 /m).
SURGE_HD float boundary_pair_coefficient(const SphParameters& params, const ViscosityConstants& viscosity,
                                         float p_over_rho2_i, float inverse_rho_i, float v_dot_r, Vec3f r_ib,
                                         float r2, float volume_b, bool slip) {
  const float psi_b = params.rest_density * volume_b;  // Akinci et al. 2012, Psi_b(rho0)
  const float p_b_over_rho2_i = fmaxf(0.0f, p_over_rho2_i - inverse_rho_i * dot(params.gravity, r_ib));
  const float approach = slip ? 0.0f : fminf(v_dot_r, 0.0f);  // v_ib . r_ib of an approaching pair, else 0
  const float viscous = fast_divide(-viscosity.alpha_h_c0 * approach * inverse_rho_i, r2 + viscosity.eta2);
  return psi_b * (p_over_rho2_i + p_b_over_rho2_i + viscous);
}

// Whether wall particle x_b belongs to a free-slip wall: it lies beyond a domain face that [domain]
// slip_walls names (SphParameters::slip_faces). Why a scene wants one: Monaghan's term against a wall
// particle at rest brakes every fluid particle within a support of the wall, a friction of about
// nu / dp^2 (nu = alpha h c0 / 10), far stronger than a real boundary layer at this resolution. In a
// quasi-2-D flume a few particles wide that friction reaches most of the water and damps the waves (measured
// in docs/scenes.md, "A piston wave-maker"). Wall particles in an edge or corner beyond both a slip face and
// another count as slip. A solid's particles lie inside the domain and never do.
SURGE_HD bool on_slip_wall(const SphParameters& params, Vec3f x_b) {
  const std::uint32_t slip = params.slip_faces;  // bits x-, x+, y-, y+, z-, z+
  if (slip == 0u) return false;
  return ((slip & 1u) != 0u && x_b.x < params.domain_min.x) ||
         ((slip & 2u) != 0u && x_b.x > params.domain_max.x) ||
         ((slip & 4u) != 0u && x_b.y < params.domain_min.y) ||
         ((slip & 8u) != 0u && x_b.y > params.domain_max.y) ||
         ((slip & 16u) != 0u && x_b.z < params.domain_min.z) ||
         ((slip & 32u) != 0u && x_b.z > params.domain_max.z);
}

// Wall particles b near fluid particle i; `pair(b, ForcePair)` as for the fluid neighbours, v_dot_r taken
// with the velocity relative to the wall particle.
template <typename Kernel, typename Pair>
SURGE_HD void add_boundary_acceleration(const Kernel& kernel, const SphParameters& params,
                                        const GridGeometry& grid, const FluidFields& fluid,
                                        const CellIndexView& boundary, std::uint32_t i,
                                        ParticleAcceleration& out, Pair&& pair) {
  const Vec3f x_i = xyz(fluid.index.positions[i]);
  const Vec4f v_i = fluid.velocity[i];
  const float p_over_rho2_i = v_i.w;
  const float inverse_rho_i = 1.0f / fluid.density[i];
  const ViscosityConstants viscosity = viscosity_constants(params);
  const float support2 = params.support * params.support;
  for_each_neighbor(grid, boundary, x_i, support2, [&](std::uint32_t b, Vec3f r_ib, float r2) {
    const float gradient_factor = kernel.gradient_factor(r2);
    const float v_dot_r = dot(xyz(v_i) - boundary_velocity(boundary, b), r_ib);
    const Vec4f x_b = boundary.positions[b];
    out.acceleration -= (boundary_pair_coefficient(params, viscosity, p_over_rho2_i, inverse_rho_i, v_dot_r,
                                                   r_ib, r2, x_b.w, on_slip_wall(params, xyz(x_b))) *
                         gradient_factor) *
                        r_ib;
    pair(b, ForcePair{r_ib, r2, gradient_factor, v_dot_r, 0.0f});
  });
}
template <typename Kernel>
SURGE_HD void add_boundary_acceleration(const Kernel& kernel, const SphParameters& params,
                                        const GridGeometry& grid, const FluidFields& fluid,
                                        const CellIndexView& boundary, std::uint32_t i,
                                        ParticleAcceleration& out) {
  add_boundary_acceleration(kernel, params, grid, fluid, boundary, i, out, NoPairTerm{});
}

// The fluid's force on one wall particle b (of a solid's body) at x_b moving at v_b: the reaction to every
// fluid neighbour's wall term, +m_i boundary_pair_coefficient(...) grad_i W_ib (Akinci et al. 2012, eq. 11).
// Summed over a solid's particles it is the pressure and viscous force on the solid.
template <typename Kernel>
SURGE_HD Vec3f fluid_force_on_wall_particle(const Kernel& kernel, const SphParameters& params,
                                            const GridGeometry& grid, const FluidFields& fluid, Vec3f x_b,
                                            Vec3f v_b, float volume_b) {
  const ViscosityConstants viscosity = viscosity_constants(params);
  const bool slip = on_slip_wall(params, x_b);
  const float support2 = params.support * params.support;
  Vec3f force{};
  for_each_neighbor(grid, fluid.index, x_b, support2, [&](std::uint32_t i, Vec3f r_bi, float r2) {
    const Vec3f r_ib = -1.0f * r_bi;
    const Vec4f v_i = fluid.velocity[i];
    const float v_dot_r = dot(xyz(v_i) - v_b, r_ib);
    // The same numbers as add_boundary_acceleration's: p_i / rho_i^2 from v_i's w, 1 / rho_i by one division.
    force += (params.particle_mass *
              boundary_pair_coefficient(params, viscosity, v_i.w, 1.0f / fluid.density[i], v_dot_r, r_ib, r2,
                                        volume_b, slip) *
              kernel.gradient_factor(r2)) *
             r_ib;
  });
  return force;
}

// fluid_force_on_wall_particle as the callable SolidBodies sums over a body's particles (solid_bodies.h).
template <typename Kernel>
struct WcsphWallReaction {
  Kernel kernel;
  SphParameters params;
  GridGeometry grid;
  FluidFields fluid;
  SURGE_HD Vec3f operator()(Vec3f x_b, Vec3f v_b, float volume_b) const {
    return fluid_force_on_wall_particle(kernel, params, grid, fluid, x_b, v_b, volume_b);
  }
};

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

// ---- Density from the continuity equation (continuity_density) ----
//
// Summation density knows only where the neighbours are; the continuity equation integrates how fast they
// approach. Its density is not deficient at the free surface, and with delta-SPH diffusion it carries no
// particle-scale noise into the pressure, which a wall sensor reads (Molteni & Colagrossi 2009). The rate
// and the acceleration come from one neighbour visit: the pair hooks of add_fluid_acceleration and
// add_boundary_acceleration, so the acceleration is the summation pass's to the last bit, given the same
// densities and pressures.

// The density-diffusion term's constants.
struct DensityDiffusionConstants {
  float delta_h_c0;  // delta h c0 [m^2/s]; 0 = no diffusion
  float eta2;        // keeps psi_ij finite as r -> 0: 0.01 h^2 [m^2], as the viscous term's
  // d rho^H / dx = rho0 g / c0^2 [kg/m^4]: the hydrostatic density gradient of the Tait fluid at rest
  // density.
  Vec3f hydrostatic_gradient;
};
SURGE_HD DensityDiffusionConstants density_diffusion_constants(const SphParameters& params) {
  const float h = 0.5f * params.support;
  const float c0 = params.speed_of_sound;
  return {params.density_diffusion * h * c0, 0.01f * h * h,
          (params.rest_density / (c0 * c0)) * params.gravity};
}

// One fluid neighbour's share of the diffusion sum (delta h c0 is applied once to the total):
//
//   D_i += delta h c0  sum_j  psi_ij . grad_i W_ij  V_j,   V_j = m / rho_j,
//   psi_ij = 2 (rho_j - rho_i - rho^H_ij) r_ji / (|r_ij|^2 + eta^2),   r_ji = x_j - x_i
//
// (Molteni & Colagrossi 2009, eq. 9; the sum is Brookshaw's Laplacian, so the term is delta h c0 lap(rho):
// with rho_j > rho_i, r_ji . grad_i W_ij = -r_ij . grad_i W_ij > 0 and rho_i grows.) Left alone it also
// diffuses the hydrostatic density gradient, which wants rho_i to equal its neighbours': a column at rest
// then drifts and the pressure at the floor falls. Fourtakas et al. 2019 (eq. 14) subtract the hydrostatic
// part, rho^H_ij = rho^H_j - rho^H_i, so only the dynamic density diffuses. They write it as the inverse of
// the Tait equation, rho0 ((1 + (p^H_j - p^H_i) / B)^(1/gamma) - 1) with p^H_j - p^H_i = rho0 g . r_ji; to
// first order in (p^H_j - p^H_i) / B (about 1e-3 across a kernel at c0 = 10 v_max) that is
// rho0 g . r_ji / c0^2. We take the first-order form: it is antisymmetric in i and j, as the rest of
// psi_ij is, and costs no powf per pair. With grad_i W_ij = F r_ij (Kernel::gradient_factor),
// r_ji . grad_i W_ij = -F r^2, and the pair costs one (fast) division.
//
// Why Fourtakas and not Antuono et al. 2010: theirs corrects with the renormalised density gradient
// <grad rho>^L, a second neighbour pass (and a 3x3 matrix per particle) before the one the step needs.
// The term runs over fluid neighbours only (DualSPHysics' "Fourtakas" option does the same): the wall
// particles carry no density of their own, and no flux through the wall is right for rho - rho^H.
SURGE_HD float density_diffusion_pair(const DensityDiffusionConstants& diffusion, float particle_mass,
                                      float rho_i, float rho_j, Vec3f r_ij, float r2, float gradient_factor) {
  const float rho_hydrostatic_ij = -dot(diffusion.hydrostatic_gradient, r_ij);  // rho^H_j - rho^H_i
  const float r_ji_dot_grad = -gradient_factor * r2;
  return fast_divide(2.0f * particle_mass * (rho_j - rho_i - rho_hydrostatic_ij) * r_ji_dot_grad,
                     (r2 + diffusion.eta2) * rho_j);
}

// The fluid part: a_i as add_fluid_acceleration adds it, and D rho_i / Dt's fluid share returned,
//   sum_j m (v_i - v_j) . grad_i W_ij  +  the diffusion term (density_diffusion_pair).
// Differentiating summation density, m sum_j W_ij, in time gives the first sum: with the same neighbours
// and mass, continuity and summation agree while the particles keep their neighbours. With grad_i W_ij =
// F r_ij, (v_i - v_j) . grad_i W_ij is F (v_ij . r_ij), which the viscous term has computed.
template <typename Kernel>
SURGE_HD float add_fluid_rates(const Kernel& kernel, const SphParameters& params, const GridGeometry& grid,
                               const FluidFields& fluid, std::uint32_t i, ParticleAcceleration& out) {
  const float rho_i = fluid.density[i];
  const float m = params.particle_mass;
  const DensityDiffusionConstants diffusion = density_diffusion_constants(params);
  float convergence = 0.0f, diffusion_sum = 0.0f;
  add_fluid_acceleration(kernel, params, grid, fluid, i, out, [&](std::uint32_t, const ForcePair& pair) {
    convergence += pair.gradient_factor * pair.v_dot_r;
    diffusion_sum +=
        density_diffusion_pair(diffusion, m, rho_i, pair.rho_j, pair.r_ij, pair.r2, pair.gradient_factor);
  });
  return m * convergence + diffusion.delta_h_c0 * diffusion_sum;
}

// The wall part: a_i as add_boundary_acceleration adds it, and D rho_i / Dt's wall share returned,
//   sum_b rho0 V_b (v_i - v_b) . grad_i W_ib,
// the time derivative of summation density's wall sum (Akinci et al. 2012, eq. 5: Psi_b = rho0 V_b).
template <typename Kernel>
SURGE_HD float add_boundary_rates(const Kernel& kernel, const SphParameters& params, const GridGeometry& grid,
                                  const FluidFields& fluid, const CellIndexView& boundary, std::uint32_t i,
                                  ParticleAcceleration& out) {
  float convergence = 0.0f;
  add_boundary_acceleration(kernel, params, grid, fluid, boundary, i, out,
                            [&](std::uint32_t b, const ForcePair& pair) {
                              convergence += boundary.positions[b].w * (pair.gradient_factor * pair.v_dot_r);
                            });
  return params.rest_density * convergence;
}

// a_i and D rho_i / Dt of a continuity step, from one visit of i's neighbours.
struct ParticleRates {
  ParticleAcceleration acceleration;
  float density_rate = 0;  // D rho_i / Dt [kg/m^3/s]
};
template <typename Kernel>
SURGE_HD ParticleRates compute_rates(const Kernel& kernel, const SphParameters& params,
                                     const GridGeometry& grid, const FluidFields& fluid,
                                     const CellIndexView& boundary, std::uint32_t i) {
  ParticleRates out;
  out.acceleration = start_acceleration(params, fluid, i);
  out.density_rate = add_fluid_rates(kernel, params, grid, fluid, i, out.acceleration);
  out.density_rate += add_boundary_rates(kernel, params, grid, fluid, boundary, i, out.acceleration);
  finish_acceleration(params, out.acceleration);
  return out;
}

// The density a fluid at rest holds at `depth` below its free surface: the Tait equation inverted for
// the hydrostatic pressure rho0 g depth, rho = rho0 (1 + rho0 g depth / B)^(1/gamma). A continuity run
// starts from it, so a tank starts at rest instead of ringing from an uncompressed lattice.
inline float hydrostatic_density(const SphParameters& params, float depth) {
  const float g = sqrtf(length_squared(params.gravity));
  const float p = params.rest_density * g * fmaxf(depth, 0.0f);
  return params.rest_density * powf(1.0f + p / params.tait_stiffness, 1.0f / params.tait_exponent);
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

// Continuity density's integrator: the Verlet scheme of DualSPHysics (Crespo et al. 2015, Comput. Phys.
// Commun. 187, eqs. 20-22), two-level in v and rho:
//   x^{n+1} = x^n + dt (v^n + xsph) + dt^2 / 2 a^n,
//   v^{n+1} = v^{n-1} + 2 dt a^n,   rho^{n+1} = rho^{n-1} + 2 dt D rho^n / Dt,
// and every kVerletEulerInterval-th step an Euler step, v^{n+1} = v^n + dt a^n, rho^{n+1} = rho^n + dt D
// rho^n/Dt, which joins the even and odd steps' solutions again (leapfrog's computational mode). Why not
// symplectic Euler as summation density runs: there rho follows x, which drifts with the new v; with rho a
// state of its own, one neighbour pass gives a and D rho/Dt from the same (v^n, rho^n), and (v, rho) then
// take an explicit Euler step of the acoustic waves, which grow by (omega dt)^2 / 2 a step: a tank at rest
// without density diffusion left the domain after 877 steps (measured). Leapfrog is neutral for them at omega
// dt < 1, still with one pass a step. The adaptive dt enters as DualSPHysics takes it, 2 dt over the two
// levels.
//
// The interval: leapfrog takes the damping terms (artificial viscosity, the diffusion term) at the middle
// level, where they feed the computational mode, which grows until the next Euler step. At DualSPHysics' 40
// the hydrostatic tank with delta = 0.1 stayed quiet for 0.095 s and then broke up from the bulk (the density
// range went from 0.5 % to 50 % in 0.05 s); at 10 (and at 5) it stays quiet through 0.4 s with the floor
// pressure's standard deviation at 4 % of its mean. Measured on the tank of
// tests/sim/continuity_density_test.cpp.
//
// The same mode bounds delta (density_diffusion, at most 0.2). At the middle level a diffusion term is
// unstable at any strength: the computational mode of its fastest (particle-scale) density pattern grows by
// about 1 + lambda dt a step, lambda dt = 6 delta c0 dt / h for the cubic spline of support 2 h (1.5 delta at
// CFL 0.25), which only the Euler steps hold back: delta = 0.2 ran, delta = 0.3 left the tank at step 192
// and delta = 0.5 at step 51. Taking the diffusion at the previous level on leapfrog steps, rho^{n+1} =
// rho^{n-1} + 2 dt (C^n + D^{n-1}) (the lagged diffusion of leapfrog models, Durran 2010), made it a forward
// Euler step of 2 dt, stable for lambda dt < 1: delta = 0.5 ran, and delta = 0.1 read as before (a trial,
// measured). It costs the force pass a fourth array read per neighbour (rho^{n-1}), not yet measured on the
// GPU, so it is not in.
inline constexpr long long kVerletEulerInterval = 10;

// `before` holds v^{n-1} in xyz and rho^{n-1} in w (one array to carry through the sort, not two) and leaves
// with v^n, rho^n; w = 0 means no previous step (a new run, a new particle), which takes an Euler step.
SURGE_HD void integrate_verlet(float dt, bool euler_step, const ParticleAcceleration& a, float density_rate,
                               Vec4f& x, Vec4f& v, float& rho, Vec4f& before) {
  const bool euler = euler_step || before.w == 0.0f;
  const Vec4f v_n = v;
  const float rho_n = rho;
  const Vec4f v_base = euler ? v_n : before;
  const float rho_base = euler ? rho_n : before.w;
  const float span = euler ? dt : 2.0f * dt;
  const float half_dt2 = 0.5f * dt * dt;
  x.x += dt * (v_n.x + a.xsph.x) + half_dt2 * a.acceleration.x;
  x.y += dt * (v_n.y + a.xsph.y) + half_dt2 * a.acceleration.y;
  x.z += dt * (v_n.z + a.xsph.z) + half_dt2 * a.acceleration.z;
  v.x = v_base.x + span * a.acceleration.x;
  v.y = v_base.y + span * a.acceleration.y;
  v.z = v_base.z + span * a.acceleration.z;
  rho = rho_base + span * density_rate;
  before = Vec4f{v_n.x, v_n.y, v_n.z, rho_n};
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
