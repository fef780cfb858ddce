// Properties every SPH kernel must have, checked for each kernel type on a fine lattice in double.
#include "sim/sph/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace surge {
namespace {

template <typename Kernel>
class KernelTest : public ::testing::Test {};
using KernelTypes = ::testing::Types<CubicSplineKernel<double>, WendlandC2Kernel<double>>;
TYPED_TEST_SUITE(KernelTest, KernelTypes);

// Sums f over a cubic lattice of spacing `dx` covering the support (midpoint rule).
template <typename F>
double lattice_integral(double support, double dx, F&& f) {
  const int reach = int(std::ceil(support / dx)) + 1;
  double sum = 0;
  for (int k = -reach; k <= reach; ++k)
    for (int j = -reach; j <= reach; ++j)
      for (int i = -reach; i <= reach; ++i) sum += f(Vec3d{(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx});
  return sum * dx * dx * dx;
}

TYPED_TEST(KernelTest, IntegratesToOne) {
  const auto kernel = TypeParam::make(0.7);
  const double integral = lattice_integral(kernel.support, kernel.support / 60, [&](Vec3d r) {
    return kernel.value(std::sqrt(length_squared(r)));
  });
  EXPECT_NEAR(integral, 1.0, 1e-4);
}

TYPED_TEST(KernelTest, GradientIntegratesToZeroAndMatchesDerivative) {
  const auto kernel = TypeParam::make(0.7);
  const double dx = kernel.support / 40;
  for (int axis = 0; axis < 3; ++axis) {
    const double integral = lattice_integral(kernel.support, dx, [&](Vec3d r) {
      const Vec3d g = kernel.gradient(r, std::sqrt(length_squared(r)));
      return axis == 0 ? g.x : axis == 1 ? g.y : g.z;
    });
    EXPECT_NEAR(integral, 0.0, 1e-9);
  }
  // The analytic derivative agrees with a central difference of the value.
  for (double r = 0.02; r < kernel.support; r += 0.05) {
    const double h = 1e-6;
    EXPECT_NEAR(kernel.derivative(r), (kernel.value(r + h) - kernel.value(r - h)) / (2 * h),
                1e-5 * kernel.sigma)
        << "r = " << r;
  }
}

TYPED_TEST(KernelTest, GradientIsAntisymmetric) {
  const auto kernel = TypeParam::make(1.3);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int n = 0; n < 200; ++n) {
    const Vec3d r{u(rng), u(rng), u(rng)};
    const double length = std::sqrt(length_squared(r));
    const Vec3d g_ij = kernel.gradient(r, length);
    const Vec3d g_ji = kernel.gradient(-r, length);
    EXPECT_DOUBLE_EQ(g_ij.x, -g_ji.x);
    EXPECT_DOUBLE_EQ(g_ij.y, -g_ji.y);
    EXPECT_DOUBLE_EQ(g_ij.z, -g_ji.z);
    if (length < kernel.support) {
      EXPECT_LT(dot(g_ij, r), 0.0) << "the gradient points towards the centre";
    }
  }
}

TYPED_TEST(KernelTest, ZeroAtAndBeyondTheSupportAndPositiveInside) {
  const auto kernel = TypeParam::make(0.5);
  EXPECT_EQ(kernel.value(0.5), 0.0);
  EXPECT_EQ(kernel.value(0.5000001), 0.0);
  EXPECT_EQ(kernel.value(3.0), 0.0);
  EXPECT_EQ(kernel.derivative(0.6), 0.0);
  const Vec3d far{0.4, 0.4, 0.0};
  EXPECT_EQ(length_squared(kernel.gradient(far, std::sqrt(length_squared(far)))), 0.0);
  for (double r = 0.0; r < 0.5; r += 0.01) EXPECT_GT(kernel.value(r), 0.0) << "r = " << r;
  // Continuous at the support: the last values approach zero.
  EXPECT_LT(kernel.value(0.4999), 1e-6 * kernel.value(0.0));
}

// The float kernel of a kernel type.
template <typename Kernel>
struct FloatKernel;
template <typename T>
struct FloatKernel<CubicSplineKernel<T>> {
  using type = CubicSplineKernel<float>;
};
template <typename T>
struct FloatKernel<WendlandC2Kernel<T>> {
  using type = WendlandC2Kernel<float>;
};

// The inner loops' form, grad W = gradient_factor(r^2) r_ij, is the gradient: in double to rounding, and in
// float (the GPU's form) to a few float ulps of the largest gradient; zero beyond the support, and finite
// with a zero gradient at r = 0.
TYPED_TEST(KernelTest, GradientFactorIsTheGradientOverR) {
  const auto kernel = TypeParam::make(0.9);
  const auto kernel_float = FloatKernel<TypeParam>::type::make(0.9f);
  const double largest = std::abs(kernel.derivative(kernel.support / 3));  // |dW/dr| peaks near q = 1/3
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.6, 0.6);
  for (int n = 0; n < 500; ++n) {
    const Vec3d r{u(rng), u(rng), u(rng)};
    const double r2 = length_squared(r);
    const Vec3d expected = kernel.gradient(r, std::sqrt(r2));
    const Vec3d in_double = kernel.gradient_factor(r2) * r;
    const float factor = kernel_float.gradient_factor(float(r2));
    EXPECT_NEAR(in_double.x, expected.x, 1e-12 * largest);
    EXPECT_NEAR(in_double.y, expected.y, 1e-12 * largest);
    EXPECT_NEAR(in_double.z, expected.z, 1e-12 * largest);
    EXPECT_NEAR(factor * r.x, expected.x, 1e-6 * largest) << "r^2 = " << r2;
    EXPECT_NEAR(factor * r.z, expected.z, 1e-6 * largest) << "r^2 = " << r2;
    if (r2 >= kernel.support * kernel.support) {
      EXPECT_EQ(kernel.gradient_factor(r2), 0.0);
    }
  }
  EXPECT_TRUE(std::isfinite(kernel.gradient_factor(0.0)));
  EXPECT_TRUE(std::isfinite(kernel_float.gradient_factor(0.0f)));
  EXPECT_LT(kernel.gradient_factor(0.0), 0.0) << "the gradient points towards the centre";
}

TEST(KernelTest, CubicSplineIsContinuousAtItsJoin) {
  const auto kernel = CubicSplineKernel<double>::make(1.0);
  EXPECT_NEAR(kernel.value(0.5 - 1e-12), kernel.value(0.5 + 1e-12), 1e-9);
  EXPECT_NEAR(kernel.derivative(0.5 - 1e-12), kernel.derivative(0.5 + 1e-12), 1e-9);
}

}  // namespace
}  // namespace surge
