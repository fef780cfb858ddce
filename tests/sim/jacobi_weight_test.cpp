// The Jacobi weight of DFSPH and PBF (sim/sph/jacobi_weight.h): 1 up to a support of 2 spacings, and beyond
// it the weight under which a step removes the same fraction of a smooth density error as at 2 spacings.
#include "sim/sph/jacobi_weight.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim/sph/kernels.h"

namespace surge {
namespace {

// |S(k)|^2 / A of a particle inside a resting lattice of spacing 1, with S(k) = sum_j sin(k . r_j) grad W_j
// and A = sum_j |grad W_j|^2: the fraction of a density error of wave number k (along x) that one
// unweighted Jacobi step removes.
template <typename Kernel>
double removed_fraction(const Kernel& kernel, double k) {
  const int reach = int(std::ceil(kernel.support));
  Vec3<double> s{};
  for (int a = -reach; a <= reach; ++a)
    for (int b = -reach; b <= reach; ++b)
      for (int c = -reach; c <= reach; ++c) {
        const double r = std::sqrt(double(a * a + b * b + c * c));
        if (r == 0.0 || r >= kernel.support) continue;
        s = s + std::sin(k * a) * kernel.gradient(Vec3<double>{double(a), double(b), double(c)}, r);
      }
  return length_squared(s) / lattice_gradient_sum(kernel, 1.0);
}

template <typename Kernel>
void expect_smooth_error_step_as_at_two_spacings(KernelType type, const char* name) {
  const double k = 0.05 * 3.14159265358979;  // a wavelength of 40 spacings
  const double at_two = removed_fraction(Kernel::make(2.0), k);
  for (double support : {2.5, 3.0, 3.5, 4.0}) {
    const double unweighted = removed_fraction(Kernel::make(support), k);
    const double weight = jacobi_weight(type, float(support), 1.0f);
    std::printf(
        "%s, support %.1f: omega %.4f; a step removes %.3f of the error unweighted, %.3f weighted "
        "(%.3f at 2 spacings)\n",
        name, support, weight, unweighted, weight * unweighted, at_two);
    EXPECT_GT(unweighted, 2.0 * at_two) << name << " at " << support << " spacings";
    EXPECT_NEAR(weight * unweighted / at_two, 1.0, 0.1) << name << " at " << support << " spacings";
  }
}

TEST(JacobiWeight, IsOneUpToTwoSpacings) {
  for (KernelType type : {KernelType::cubic_spline, KernelType::wendland_c2}) {
    EXPECT_EQ(jacobi_weight(type, 0.015f, 0.01f), 1.0f);
    EXPECT_EQ(jacobi_weight(type, 0.02f, 0.01f), 1.0f);
    EXPECT_LT(jacobi_weight(type, 0.03f, 0.01f), 0.25f);
    EXPECT_LT(jacobi_weight(type, 0.04f, 0.01f), jacobi_weight(type, 0.03f, 0.01f));
  }
}

// The weight's reason: a smooth error responds to a step with the SPH Laplacian whatever the kernel, while
// the diagonal A_ii shrinks as the support widens, so an unweighted step removes several times what it
// removes at 2 spacings (jacobi_weight.h); the weighted step removes the same fraction.
TEST(JacobiWeight, GivesASmoothErrorTheStepItHasAtTwoSpacings) {
  expect_smooth_error_step_as_at_two_spacings<CubicSplineKernel<double>>(KernelType::cubic_spline, "cubic");
  expect_smooth_error_step_as_at_two_spacings<WendlandC2Kernel<double>>(KernelType::wendland_c2, "wendland");
}

}  // namespace
}  // namespace surge
