// The weight of the Jacobi pressure iterations of DFSPH and PBF, for any kernel and support.
//
// Both solvers set a particle's pressure value from its own density error alone, q_i = e_i / A_ii (BK17
// eq. 11: A_ii = 1 / alpha_i; MM13 eq. 11: the lambda denominator), with A_ii = |g_i|^2 + sum_j |grad
// W_ij|^2 the response of rho_i to q_i when no other pressure acts; and every particle does so at once. The
// neighbours' pressures add to the response. On a resting lattice an error that varies smoothly (wavelength
// much longer than the support) responds to one step with the SPH Laplacian, about k^2 / V^2 per unit q
// whatever the kernel, while A_ii = sum_j |grad W_ij|^2 shrinks as the support H widens (about as (dx/H)^5
// at a fixed spacing dx). So the fraction of a smooth error one step removes grows with the support: for a
// wavelength of 20 spacings and the cubic spline it is 0.23 at a support of 2 spacings (BK17, MM13 and
// SPlisHSPlasH use 2), 1.30 at 3 and 5.2 at 4, and more at shorter wavelengths. Neither solver takes an
// overshoot back (q_i >= 0: no suction), so the fluid is thrown apart, and where the solve keeps iterating
// the overshoots feed each other. Measured at 3 spacings: a block compressed by 2 % leaves DFSPH's first
// iteration 5 times faster than the converged solve; on SPHERIC Test 2 (84k particles, Wendland) the density
// error grows 1.5 times an iteration and a particle leaves at 1e18 m/s.
//
// Weighting each step by omega = A(H) / A(2 dx), the bulk sums at this support and at 2 spacings, makes it
// remove the same fraction of a smooth error as at 2 spacings, where omega = 1 is the proven choice, so a
// smooth error (gravity's) takes as many iterations as there. Supports of 2 spacings or less keep omega = 1
// (their A_ii is larger: a step removes less still).
#pragma once

#include <cmath>

#include "sim/core/vec.h"
#include "sim/sph/kernels.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// sum_j |grad W_ij|^2 over the neighbours j of a particle inside a resting lattice of spacing dx [1/m^8].
template <typename Kernel>
double lattice_gradient_sum(const Kernel& kernel, double spacing) {
  const int reach = int(std::ceil(double(kernel.support) / spacing));
  double sum = 0.0;
  for (int a = -reach; a <= reach; ++a)
    for (int b = -reach; b <= reach; ++b)
      for (int c = -reach; c <= reach; ++c) {
        const Vec3<double> r{a * spacing, b * spacing, c * spacing};
        const double distance = std::sqrt(double(a * a + b * b + c * c)) * spacing;
        if (distance > 0.0 && distance < double(kernel.support))
          sum += length_squared(kernel.gradient(r, distance));
      }
  return sum;
}

// The weight omega on the Jacobi step q_i = omega e_i / A_ii of DFSPH and PBF (header comment).
inline float jacobi_weight(KernelType kernel, float support, float spacing) {
  const double reference_support = 2.0 * double(spacing);
  if (double(support) <= reference_support) return 1.0f;
  const auto gradient_sum = [&](double radius) {
    if (kernel == KernelType::wendland_c2)
      return lattice_gradient_sum(WendlandC2Kernel<double>::make(radius), double(spacing));
    return lattice_gradient_sum(CubicSplineKernel<double>::make(radius), double(spacing));
  };
  return float(gradient_sum(double(support)) / gradient_sum(reference_support));
}

inline float jacobi_weight(const SphParameters& params) {
  return jacobi_weight(params.kernel, params.support, params.spacing);
}

}  // namespace surge
