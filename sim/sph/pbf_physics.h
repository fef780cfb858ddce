// Position Based Fluids (Macklin & Mueller 2013: "MM13"), per particle: the equations every backend runs.
//
// Each particle carries the density constraint C_i = rho_i / rho0 - 1 (MM13 eq. 1), with rho_i the SPH sum
// over fluid and Akinci wall particles at the predicted positions. Its gradients are
//     grad_i C_i = (1/rho0) (sum_j m grad W_ij + sum_b rho0 V_b grad W_ib),   grad_j C_i = -(m/rho0) grad
//     W_ij,
// and a Jacobi iteration moves every particle by
//     lambda_i = -omega C_i / (sum_k |grad_k C_i|^2 + eps)                                    (MM13 eq. 11)
//     dx_i = sum_j (m/rho0) (lambda_i + lambda_j + s_corr) grad W_ij + sum_b V_b (lambda_i + lambda_b) grad
//     W_ib
// (MM13 eqs. 12, 14)
// with the artificial pressure s_corr = -k (W(r_ij) / W(dq))^n against particle clumping (MM13 eq. 13), dq a
// fraction of the support (of 2 spacings, for wider supports: pbf_position_correction); k is 0 by default,
// for s_corr carries part of the water's weight where the walls do not feel it (solver_parameters.h).
// Walls: as in the DFSPH solver (dfsph_physics.h), a wall particle takes the fluid particle's pressure
// carried hydrostatically, which in lambda terms (p = -rho0 lambda / dt^2) is lambda_b = lambda_i + dt^2 g .
// r_ib: the wall term is V_b (lambda_i + lambda_b) grad W_ib, and its gravity part joins the prediction as an
// acceleration (wall_pressure_acceleration with rho_i = rho0). MM13 adds the dimensionless s_corr to lambda,
// which has units (m^2 here, with mass-weighted gradients); we multiply it by the lambda of a unit density
// excess in the bulk, so k reads as "an excess of k". The weight omega is 1 up to a support of 2 spacings
// and less beyond, where a Jacobi step of MM13's size overshoots (jacobi_weight.h). C_i is clamped at zero: a
// free-surface particle lacks neighbours, and pulling it toward rho0 would make the surface cohesive (an
// inequality constraint, as in later PBF work).
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/index/neighbor_loop.h"
#include "sim/sph/solver_parameters.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// sum_k |grad_k C_i|^2 of a particle inside a resting lattice of spacing dx: the scale `relaxation` refers
// to.
template <typename Kernel>
float pbf_bulk_gradient_sum(const Kernel& kernel, const SphParameters& params) {
  const float m_over_rho0 = params.particle_mass / params.rest_density;
  const int reach = int(params.support / params.spacing) + 1;
  float sum = 0.0f;  // grad_i C_i vanishes by symmetry; the sum over j remains
  for (int a = -reach; a <= reach; ++a)
    for (int b = -reach; b <= reach; ++b)
      for (int c = -reach; c <= reach; ++c) {
        const Vec3f r{a * params.spacing, b * params.spacing, c * params.spacing};
        const float distance = sqrtf(length_squared(r));
        if ((a != 0 || b != 0 || c != 0) && distance < params.support)
          sum += length_squared(m_over_rho0 * kernel.gradient(r, distance));
      }
  return sum;
}

struct PbfLambda {
  float lambda;         // [m^2]
  float constraint;     // max(C_i, 0), the density excess this iteration starts from (fraction)
  float density_ratio;  // rho_i / rho0
};

// rho_i / rho0 at the predicted positions and lambda_i (MM13 eqs. 1, 11).
template <typename Kernel>
SURGE_HD PbfLambda pbf_lambda(const Kernel& kernel, const SphParameters& params, const PbfParameters& pbf,
                              const GridGeometry& grid, const CellIndexView& fluid,
                              const CellIndexView& boundary, std::uint32_t i) {
  const Vec3f x_i = xyz(fluid.positions[i]);
  const float support2 = params.support * params.support;
  const float m_over_rho0 = params.particle_mass / params.rest_density;
  float density_ratio = 0.0f, gradient_j_sum = 0.0f;
  Vec3f gradient_i{};
  for_each_neighbor_of(grid, fluid, i, x_i, support2, [&](std::uint32_t j, Vec3f r_ij, float r2) {
    const float r = sqrtf(r2);
    density_ratio += m_over_rho0 * kernel.value(r);
    if (j == i) return;
    const Vec3f grad = m_over_rho0 * kernel.gradient(r_ij, r);
    gradient_i += grad;
    gradient_j_sum += length_squared(grad);
  });
  for_each_neighbor_of(grid, boundary, i, x_i, support2, [&](std::uint32_t b, Vec3f r_ib, float r2) {
    const float r = sqrtf(r2);
    const float volume = boundary.positions[b].w;
    density_ratio += volume * kernel.value(r);
    gradient_i += volume * kernel.gradient(r_ib, r);
  });
  const float constraint = density_ratio > 1.0f ? density_ratio - 1.0f : 0.0f;
  const float denominator = length_squared(gradient_i) + gradient_j_sum + pbf.relaxation_absolute;
  return {-pbf.jacobi_weight * constraint / denominator, constraint, density_ratio};
}

// The position correction dx_i of one Jacobi iteration (MM13 eqs. 12-14).
template <typename Kernel>
SURGE_HD Vec3f pbf_position_correction(const Kernel& kernel, const SphParameters& params,
                                       const PbfParameters& pbf, const GridGeometry& grid,
                                       const CellIndexView& fluid, const float* lambda,
                                       const CellIndexView& boundary, std::uint32_t i) {
  const Vec3f x_i = xyz(fluid.positions[i]);
  const float lambda_i = lambda[i];
  const float support2 = params.support * params.support;
  const float m_over_rho0 = params.particle_mass / params.rest_density;
  const float inverse_w_dq = 1.0f / kernel.value(pbf.scorr_dq * params.support);
  // s_corr acts at a support H above 2 spacings as it does at 2. k lambda_scale is the lambda a density
  // excess of k gets in the bulk, of which a Jacobi step takes omega (pbf_lambda): so does s_corr. And it is
  // evaluated at r H / (2 dx), reaching the neighbours it reaches at 2 spacings: with dq a fraction of H,
  // s_corr would push apart neighbours at rest (W(dx)/W(dq) is 0.69 at 3 spacings for the cubic spline, 0.31
  // at 2; to the 4th power 25 times as much) and drive free-surface particles into the walls, which have no
  // s_corr to push back (measured with omega alone: a dam-break column at 3 spacings lost a corner particle
  // through the wall within 70 steps).
  const float scorr_scale = pbf.scorr_k * pbf.jacobi_weight * pbf.lambda_scale;
  const float scorr_stretch = fmaxf(1.0f, params.support / (2.0f * params.spacing));
  Vec3f dx{};
  for_each_neighbor_of(grid, fluid, i, x_i, support2, [&](std::uint32_t j, Vec3f r_ij, float r2) {
    if (j == i) return;
    const float r = sqrtf(r2);
    const float s_corr = -scorr_scale * powf(kernel.value(scorr_stretch * r) * inverse_w_dq, pbf.scorr_n);
    dx += (m_over_rho0 * (lambda_i + lambda[j] + s_corr)) * kernel.gradient(r_ij, r);
  });
  if (lambda_i != 0.0f) {
    for_each_neighbor_of(grid, boundary, i, x_i, support2, [&](std::uint32_t b, Vec3f r_ib, float r2) {
      dx += (2.0f * boundary.positions[b].w * lambda_i) * kernel.gradient(r_ib, sqrtf(r2));
    });
  }
  return dx;
}

// The fluid's force on one wall particle b of a floating body, at x_b with volume V_b. A step's velocity is
// v = (x* - x) / dt, so every displacement the wall gives particle i within the step changes its momentum
// by m dx / dt, and the body takes the reverse over the step's dt: F_b = -m sum dx_ib / dt^2.
//   one iteration's position correction: dx_ib = 2 V_b lambda_i grad W_ib (pbf_position_correction), so
//       F_b = -(m / dt^2) sum_i 2 V_b lambda_i grad W_ib,  at that iteration's x* and lambda;
//   the prediction's gravity part of the wall pressure: dx_ib = dt^2 a_ib with a_ib = V_b (g . r_ib) grad
//   W_ib
//       (wall_pressure_acceleration at rho_i = rho0), so F_b = -m sum_i V_b (g . r_ib) grad W_ib, at x.
// grad W_ib = grad_i W(x_i - x_b). Summed over a step's iterations it is the position-based form of the
// pressure force; PBF's velocity filters (XSPH, vorticity confinement) visit fluid neighbours only.
template <typename Kernel>
SURGE_HD Vec3f pbf_correction_force_on_wall_particle(const Kernel& kernel, const SphParameters& params,
                                                     const GridGeometry& grid, const CellIndexView& fluid,
                                                     const float* lambda, float dt, Vec3f x_b,
                                                     float volume_b) {
  const float support2 = params.support * params.support;
  Vec3f sum{};
  for_each_neighbor(grid, fluid, x_b, support2, [&](std::uint32_t i, Vec3f r_bi, float r2) {
    if (lambda[i] != 0.0f) sum += lambda[i] * kernel.gradient(-1.0f * r_bi, sqrtf(r2));
  });
  return (-2.0f * params.particle_mass * volume_b / (dt * dt)) * sum;
}
template <typename Kernel>
SURGE_HD Vec3f pbf_prediction_force_on_wall_particle(const Kernel& kernel, const SphParameters& params,
                                                     const GridGeometry& grid, const CellIndexView& fluid,
                                                     Vec3f x_b, float volume_b) {
  const float support2 = params.support * params.support;
  Vec3f sum{};
  for_each_neighbor(grid, fluid, x_b, support2, [&](std::uint32_t, Vec3f r_bi, float r2) {
    const Vec3f r_ib = -1.0f * r_bi;
    sum += dot(params.gravity, r_ib) * kernel.gradient(r_ib, sqrtf(r2));
  });
  return (-params.particle_mass * volume_b) * sum;
}

// The two as the callables SolidBodies adds up over a body's particles (solid_bodies.h).
template <typename Kernel>
struct PbfCorrectionReaction {
  Kernel kernel;
  SphParameters params;
  GridGeometry grid;
  CellIndexView fluid;  // at this iteration's x*
  const float* lambda;
  float dt;  // [s]
  SURGE_HD Vec3f operator()(Vec3f x_b, Vec3f, float volume_b) const {
    return pbf_correction_force_on_wall_particle(kernel, params, grid, fluid, lambda, dt, x_b, volume_b);
  }
};
template <typename Kernel>
struct PbfPredictionReaction {
  Kernel kernel;
  SphParameters params;
  GridGeometry grid;
  CellIndexView fluid;  // at the step's start, x
  SURGE_HD Vec3f operator()(Vec3f x_b, Vec3f, float volume_b) const {
    return pbf_prediction_force_on_wall_particle(kernel, params, grid, fluid, x_b, volume_b);
  }
};

// XSPH viscosity (MM13 eq. 17): v_i += c sum_j (m / rho0) (v_j - v_i) W_ij, and the vorticity
// omega_i = sum_j (m / rho0) (v_j - v_i) x grad_j W_ij (MM13 eq. 15) for the confinement pass.
struct PbfVelocityFilter {
  Vec3f xsph;       // [m/s], already scaled by c
  Vec3f vorticity;  // [1/s]
};

template <typename Kernel>
SURGE_HD PbfVelocityFilter pbf_velocity_filter(const Kernel& kernel, const SphParameters& params,
                                               const PbfParameters& pbf, const GridGeometry& grid,
                                               const CellIndexView& fluid, const Vec4f* velocity,
                                               std::uint32_t i) {
  const Vec3f x_i = xyz(fluid.positions[i]);
  const Vec3f v_i = xyz(velocity[i]);
  const float support2 = params.support * params.support;
  const float m_over_rho0 = params.particle_mass / params.rest_density;
  PbfVelocityFilter out{};
  for_each_neighbor_of(grid, fluid, i, x_i, support2, [&](std::uint32_t j, Vec3f r_ij, float r2) {
    if (j == i) return;
    const float r = sqrtf(r2);
    const Vec3f v_ji = xyz(velocity[j]) - v_i;
    out.xsph += (m_over_rho0 * kernel.value(r)) * v_ji;
    // grad_j W_ij = -grad_i W_ij
    out.vorticity += m_over_rho0 * cross(v_ji, -kernel.gradient(r_ij, r));
  });
  out.xsph = pbf.xsph * out.xsph;
  return out;
}

// Vorticity confinement (MM13 eq. 16): f_i = eps (N x omega_i), N = eta / |eta|, eta = grad |omega| (SPH
// gradient).
template <typename Kernel>
SURGE_HD Vec3f pbf_vorticity_acceleration(const Kernel& kernel, const SphParameters& params,
                                          const PbfParameters& pbf, const GridGeometry& grid,
                                          const CellIndexView& fluid, const Vec3f* vorticity,
                                          std::uint32_t i) {
  const Vec3f x_i = xyz(fluid.positions[i]);
  const float support2 = params.support * params.support;
  const float m_over_rho0 = params.particle_mass / params.rest_density;
  Vec3f eta{};
  for_each_neighbor_of(grid, fluid, i, x_i, support2, [&](std::uint32_t j, Vec3f r_ij, float r2) {
    if (j == i) return;
    eta += (m_over_rho0 * sqrtf(length_squared(vorticity[j]))) * kernel.gradient(r_ij, sqrtf(r2));
  });
  const float eta_length = sqrtf(length_squared(eta));
  if (eta_length < 1e-12f) return {};
  return pbf.vorticity * cross((1.0f / eta_length) * eta, vorticity[i]);
}

}  // namespace surge
