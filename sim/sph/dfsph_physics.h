// Divergence-free SPH (Bender & Koschier 2015, 2017: "BK17"), per particle: the equations every backend runs.
//
// Notation. The solvers correct velocities with pressure-like values q_i = p_i / rho_i^2 [m^2/s^2 /
// (kg/m^3)], through the symmetric SPH pressure acceleration
//     dv_i = -dt ( sum_j m (q_i + q_j) grad W_ij  +  sum_b rho0 V_b (q_i + q_b) grad W_ib ),    (BK17 eq. 9)
// where b runs over Akinci wall particles (volume V_b, at rest). A wall particle takes the pressure of the
// fluid particle carried hydrostatically to its place, p_b = p_i - rho_i g . r_ib, as in the WCSPH solver
// (wcsph_physics.h; Adami et al. 2012, eq. 27): q_b = q_i - g . r_ib / rho_i. Its q_i part doubles the wall
// term of each iteration; its gravity part does not depend on the iteration and joins the non-pressure forces
// (wall_pressure_acceleration). BK17 and SPlisHSPlasH use q_b = 0; measured in the hydrostatic test, that
// leaves the pressure 15 % above rho0 g d in a narrow tank, where walls carry much of the column. With g_i =
// sum_j m grad W_ij + sum_b rho0 V_b grad W_ib and s_i = sum_j |m grad W_ij|^2, the change of rho_i that q_i
// alone causes is -dt^2 q_i (|g_i|^2 + s_i), so the q_i that removes a density excess e_i in one step is
//     q_i = e_i alpha_i / dt^2,      alpha_i = 1 / (|g_i|^2 + s_i)                            (BK17 eq. 11)
// and the one that removes a density rate d_i = D rho_i / Dt is q_i = d_i alpha_i / dt. The solver takes
// omega times these (jacobi_weight.h): 1 up to a support of 2 spacings; less beyond, where the neighbours'
// pressures, set in the same Jacobi iteration, add up to many times the response alpha_i counts. Summed over
// the iterations of a solve, q_i is the particle's pressure over density squared: p_i = q_i rho_i^2.
//
// The wall's velocity is mirrored too. A wall particle that mirrors the fluid particle's pressure is a ghost
// of it; a ghost also mirrors its velocity about the wall's, v_b' = 2 v_b - v_i, so the pair closes at
// 2 (v_i - v_b) and the walls' share of D rho_i/Dt is twice the plain continuity equation's. Why: the solves
// are Jacobi iterations on the linear system A q = e, A_ij the change of rho_i that q_j makes. Where the
// walls push with 2 q_i but rho_i feels a particle's velocity toward them once, A_ij - A_ji is m (G_i + G_j)
// . grad W_ij for two particles beside a wall: A is not symmetric, and the pressure forces are no longer
// the gradient of the density constraint, so they can do work. They did: a tank at rest (0.3 x 0.3 m, 0.45 m
// deep, 2 cm spacing, cubic spline at 2 spacings, water's viscosity) reached a mean kinetic energy of 0.127
// J/kg and 4.4 m/s within 0.8 s, the fastest particles along the walls; with the rate doubled A is
// symmetric and the same tank held 0.009 J/kg (docs/perf/2026-12-05-dfsph-wall-symmetry.md). At rest
// (v_i = v_b) the rate is zero either way, so the hydrostatic state, and its pressure, are unchanged.
//
// The walls' part of both sums an iteration evaluates is constant through a step's solves, since positions
// and wall velocities stand still until the step integrates: with G_i = rho0 sum_b V_b grad W_ib (the g_b
// above) and c_i = rho0 sum_b V_b v_b . grad W_ib, the walls add 2 (v_i . G_i - c_i) to D rho_i/Dt and
// 2 q_i G_i to the pressure sum. The factor pass computes G_i and c_i once (DfsphWallTerms), so an
// iteration's two neighbour passes visit the fluid neighbours only, as SPlisHSPlasH's DFSPH does with its
// precomputed boundary gradients.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/index/neighbor_loop.h"
#include "sim/sph/solver_parameters.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/stirring_physics.h"

namespace surge {

// What the factor pass stores for one particle.
struct DfsphFactor {
  float alpha;      // 1 / (response), 0 when the particle has no neighbours (see dfsph_factor)
  float neighbors;  // fluid + wall particles within the support, itself included
  float density;  // rho_i = m sum_j W_ij + rho0 sum_b V_b W_ib (as compute_density), from the same neighbour
                  // loop
};

// The walls' terms of a particle for a step's solves (header comment): xyz = G_i = rho0 sum_b V_b grad W_ib,
// w = c_i = rho0 sum_b V_b v_b . grad W_ib. One float4, a 16-byte load per iteration pass.
struct DfsphWallTerms {
  Vec4f sums;
};

// What the factor pass computes for one particle: its factor, density and wall terms.
struct DfsphParticleTerms {
  DfsphFactor factor;
  DfsphWallTerms wall;
};

// alpha_i and the neighbour count. With the walls' pressure and velocity both mirrored (header comment), q_i
// alone changes rho_i by -dt^2 q_i (|g_f + 2 g_b|^2 + s_i), g_f and g_b the fluid and wall parts of g_i
// (BK17 eq. 11 has |g_f + g_b|^2, its walls neither pushing nor closing twice). The same wall loop sums the
// wall terms.
template <typename Kernel>
SURGE_HD DfsphParticleTerms dfsph_factor(const Kernel& kernel, const SphParameters& params,
                                         const GridGeometry& grid, const CellIndexView& fluid,
                                         const CellIndexView& boundary, std::uint32_t i) {
  const Vec3f x_i = xyz(fluid.positions[i]);
  const float support2 = params.support * params.support;
  const float m = params.particle_mass;
  Vec3f g_fluid{}, g_wall{};
  float s = 0.0f, count = 0.0f, fluid_w = 0.0f, wall_w = 0.0f, wall_rate = 0.0f;
  for_each_neighbor_of(grid, fluid, i, x_i, support2, [&](std::uint32_t, Vec3f r_ij, float r2) {
    const float r = sqrtf(r2);
    const Vec3f grad = m * kernel.gradient(r_ij, r);
    fluid_w += kernel.value(r);
    g_fluid += grad;
    s += length_squared(grad);
    count += 1.0f;
  });
  for_each_neighbor_of(grid, boundary, i, x_i, support2, [&](std::uint32_t b, Vec3f r_ib, float r2) {
    const float r = sqrtf(r2);
    const float volume = boundary.positions[b].w;
    wall_w += volume * kernel.value(r);
    const Vec3f grad = (params.rest_density * volume) * kernel.gradient(r_ib, r);
    g_wall += grad;
    wall_rate += dot(boundary_velocity(boundary, b), grad);
    count += 1.0f;
  });
  const float density = m * fluid_w + params.rest_density * wall_w;
  const float response = length_squared(g_fluid + 2.0f * g_wall) + s;
  // A lone particle has g = s = 0: nothing can compress it, and it takes no pressure.
  return {{response > 1e-30f ? 1.0f / response : 0.0f, count, density}, {make_vec4(g_wall, wall_rate)}};
}

// D rho_i / Dt = sum_j m (v_i - v_j) . grad W_ij + 2 sum_b rho0 V_b (v_i - v_b) . grad W_ib   (the
// continuity equation with each wall particle a ghost of i, closing at twice i's velocity relative to the
// wall (header comment); v_b = 0 but on a moving solid), the wall sum as 2 (v_i . G_i - c_i)
// (DfsphWallTerms)
template <typename Kernel>
SURGE_HD float density_rate(const Kernel& kernel, const SphParameters& params, const GridGeometry& grid,
                            const CellIndexView& fluid, const Vec4f* velocity, const DfsphWallTerms& wall,
                            std::uint32_t i) {
  const Vec3f x_i = xyz(fluid.positions[i]);
  const Vec3f v_i = xyz(velocity[i]);
  const float support2 = params.support * params.support;
  float fluid_sum = 0.0f;
  for_each_neighbor_gradient_of(grid, fluid, i, x_i, support2, kernel, [&](std::uint32_t j, Vec3f grad) {
    fluid_sum += dot(v_i - xyz(velocity[j]), grad);
  });
  return params.particle_mass * fluid_sum + 2.0f * (dot(v_i, xyz(wall.sums)) - wall.sums.w);
}

// The velocity change dv_i of the pressure values q (BK17 eq. 9, written out in the header comment), the wall
// sum as 2 q_i G_i (DfsphWallTerms).
template <typename Kernel>
SURGE_HD Vec3f pressure_velocity_change(const Kernel& kernel, const SphParameters& params,
                                        const GridGeometry& grid, const CellIndexView& fluid, const float* q,
                                        const DfsphWallTerms& wall, std::uint32_t i, float dt) {
  const Vec3f x_i = xyz(fluid.positions[i]);
  const float q_i = q[i];
  const float support2 = params.support * params.support;
  Vec3f fluid_sum{};
  for_each_neighbor_gradient_of(grid, fluid, i, x_i, support2, kernel, [&](std::uint32_t j, Vec3f grad) {
    const float q_sum = q_i + q[j];
    if (q_sum != 0.0f) fluid_sum += q_sum * grad;
  });
  // q_i + q_b = 2 q_i for the part of q_b an iteration changes (header comment).
  return (-dt) * (params.particle_mass * fluid_sum + (2.0f * q_i) * xyz(wall.sums));
}

// Gravity, the stirring hand (wcsph_physics.h) and laminar viscosity (Morris et al. 1997, eq. 8, as used
// with DFSPH by BK17):
//   a_i = g + a_hand + 2 (d + 2) nu sum_j (m / rho_j) (v_ij . x_ij) / (|x_ij|^2 + 0.01 h^2) grad W_ij,  d
//   = 3.
template <typename Kernel>
SURGE_HD Vec3f non_pressure_acceleration(const Kernel& kernel, const SphParameters& params, float viscosity,
                                         const GridGeometry& grid, const CellIndexView& fluid,
                                         const Vec4f* velocity, const float* density, std::uint32_t i) {
  const Vec3f x_i = xyz(fluid.positions[i]);
  const Vec3f v_i = xyz(velocity[i]);
  const Vec3f a = params.gravity + stirring_acceleration(params.stirring, x_i, v_i);
  if (viscosity <= 0.0f) return a;
  const float h = 0.5f * params.support;
  const float eta2 = 0.01f * h * h;
  const float support2 = params.support * params.support;
  Vec3f sum{};
  for_each_neighbor_of(grid, fluid, i, x_i, support2, [&](std::uint32_t j, Vec3f r_ij, float r2) {
    if (j == i) return;
    const float v_dot_x = dot(v_i - xyz(velocity[j]), r_ij);
    sum += (v_dot_x / (density[j] * (r2 + eta2))) * kernel.gradient(r_ij, sqrtf(r2));
  });
  return a + (10.0f * viscosity * params.particle_mass) * sum;
}

// The gravity part of the wall pressure, -sum_b rho0 V_b (-g . r_ib / rho_i) grad W_ib (header comment): the
// hydrostatic pressure difference between a fluid particle and the wall particles beside it.
template <typename Kernel>
SURGE_HD Vec3f wall_pressure_acceleration(const Kernel& kernel, const SphParameters& params,
                                          const GridGeometry& grid, const CellIndexView& boundary, Vec3f x_i,
                                          float rho_i) {
  const float support2 = params.support * params.support;
  Vec3f sum{};
  for_each_neighbor(grid, boundary, x_i, support2, [&](std::uint32_t b, Vec3f r_ib, float r2) {
    sum += (boundary.positions[b].w * dot(params.gravity, r_ib)) * kernel.gradient(r_ib, sqrtf(r2));
  });
  return (params.rest_density / rho_i) * sum;
}

// The fluid's force on one wall particle b of a floating body over a step, at x_b with volume V_b: the
// reaction to every wall term the fluid's particles i received from it, as SPlisHSPlasH adds each pressure
// iteration's to its rigid body. Per unit of their mass, i received from b
//     dv_i = -dt_d 2 rho0 V_b q_i^d grad W_ib   summed over the divergence solve's iterations (q^d, its
//     dt_d), dv_i = -dt   2 rho0 V_b q_i^p grad W_ib   summed over the density solve's (q^p), a_i  = (rho0 /
//     rho_i) V_b (g . r_ib) grad W_ib   the gravity part of the wall pressure (non-pressure),
// with grad W_ib = grad_i W(x_i - x_b). Each iteration's dv_i is linear in its q_i and the positions stand
// still through both solves, so the sums of q over the iterations (the warm start's included) give the
// step's total at once. The walls have no viscous term in this solver (non_pressure_acceleration is the
// fluid's alone), so nothing else acts on b. The force, the fluid's momentum change from b over dt reversed:
//     F_b = m rho0 V_b sum_i [ 2 (dt_d q_i^d + dt q_i^p) / dt - (g . r_ib) / rho_i ] grad W_ib
template <typename Kernel>
SURGE_HD Vec3f dfsph_fluid_force_on_wall_particle(const Kernel& kernel, const SphParameters& params,
                                                  const GridGeometry& grid, const CellIndexView& fluid,
                                                  const float* density, const float* q_divergence,
                                                  const float* q_density, float dt_divergence, float dt,
                                                  Vec3f x_b, float volume_b) {
  const float support2 = params.support * params.support;
  const float divergence_share = 2.0f * dt_divergence / dt;
  Vec3f sum{};
  for_each_neighbor(grid, fluid, x_b, support2, [&](std::uint32_t i, Vec3f r_bi, float r2) {
    const Vec3f r_ib = -1.0f * r_bi;
    const float pressure = divergence_share * q_divergence[i] + 2.0f * q_density[i];
    sum += (pressure - dot(params.gravity, r_ib) / density[i]) * kernel.gradient(r_ib, sqrtf(r2));
  });
  return (params.particle_mass * params.rest_density * volume_b) * sum;
}

// dfsph_fluid_force_on_wall_particle as the callable SolidBodies sums over a body's particles.
template <typename Kernel>
struct DfsphWallReaction {
  Kernel kernel;
  SphParameters params;
  GridGeometry grid;
  CellIndexView fluid;
  const float* density;
  const float* q_divergence;
  const float* q_density;
  float dt_divergence;  // of the divergence solve, 0 when it did not run [s]
  float dt;             // of the step [s]
  SURGE_HD Vec3f operator()(Vec3f x_b, Vec3f, float volume_b) const {
    return dfsph_fluid_force_on_wall_particle(kernel, params, grid, fluid, density, q_divergence, q_density,
                                              dt_divergence, dt, x_b, volume_b);
  }
};

// The time step of an incompressible solver: the particle moves at most `cfl` spacings per step (BK17 sec. 5
// uses 0.4 particle diameters), capped by dt_max.
SURGE_HD float incompressible_time_step(const SphParameters& params, float max_speed) {
  const float dt = max_speed > 0.0f ? params.cfl * params.spacing / max_speed : params.dt_max;
  return dt < params.dt_max ? dt : params.dt_max;
}

}  // namespace surge
