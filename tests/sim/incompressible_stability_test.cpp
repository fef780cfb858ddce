// DFSPH and PBF stay stable with both kernels at the supports beyond 2 spacings the loader accepts (issue
// 12). Their Jacobi step is weighted by omega (sim/sph/jacobi_weight.h): 1 up to a support of 2 spacings,
// and beyond it the weight that gives a smooth density error the step it has at 2 spacings; PBF's s_corr
// keeps its reach at 2 spacings. Without these, the dam-break column below (1650 particles in a tank slice
// five particles wide) blew up at 3 and 4 spacings with both kernels: DFSPH in the first step (7 m/s at 3
// spacings with Wendland C2, up to 1e32 m/s at 4), PBF within 3 steps (8-30 m/s).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/backend/incompressible_simulation.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

struct StabilityCase {
  const char* solver;
  KernelType kernel;
  float support_ratio;
};

std::string case_name(const testing::TestParamInfo<StabilityCase>& info) {
  const StabilityCase& c = info.param;
  return std::string(c.solver) + (c.kernel == KernelType::wendland_c2 ? "_wendland" : "_cubic") + "_support" +
         std::to_string(int(c.support_ratio));
}

constexpr float kColumnHeight = 0.45f;  // [m]

// A dam-break column 0.3 m long and 0.45 m tall in a tank slice 0.1 m wide, at a spacing of 2 cm, with walls
// as many layers deep as the support is spacings (the loader allows 4).
Scene dam_break_slice(const StabilityCase& c) {
  Scene scene;
  scene.name = "stability";
  scene.solver = *parse_solver_kind(c.solver);
  scene.domain_min = {0.0f, 0.0f, 0.0f};
  scene.domain_max = {0.5f, 0.1f, kColumnHeight + 0.1f};
  scene.walls = {true, true, true, true, true, false};
  scene.wall_layers = int(std::ceil(c.support_ratio));
  scene.spacing = 0.02f;
  scene.support_ratio = c.support_ratio;
  scene.kernel = c.kernel;
  FluidBlock water;
  water.min = {0.0f, 0.0f, 0.0f};
  water.max = {0.3f, 0.1f, kColumnHeight};
  scene.blocks = {water};
  return scene;
}

double figure(const std::vector<NamedValue>& figures, const std::string& name) {
  for (const NamedValue& f : figures)
    if (f.name == name) return std::get<double>(f.value);
  ADD_FAILURE() << "no figure " << name;
  return 0.0;
}

class IncompressibleStability : public testing::TestWithParam<StabilityCase> {};

// 20 steps (20 ms): every particle stays below twice the speed of a fall from the column's height, and the
// density error is what the solver promises: DFSPH's target, PBF's four iterations within 1 % (as in the
// hydrostatic tank, incompressible_test.cpp). Measured: the fastest particle at 0.4-1.9 m/s, but 3.0 m/s
// with DFSPH and the cubic spline at 4 spacings, whose first density solve runs its 100 iterations: the
// walls, with their mirrored pressure (dfsph_physics.h), are not yet quiet at wide supports.
TEST_P(IncompressibleStability, DamBreakColumnStaysBoundedAtWideSupport) {
  const StabilityCase& c = GetParam();
  const Scene scene = dam_break_slice(c);
  const SphSetup setup = build_setup(scene);
  auto sim = c.solver == std::string("dfsph") ? make_cpu_dfsph_simulation(setup, scene.dfsph)
                                              : make_cpu_pbf_simulation(setup, scene.pbf);
  const double speed_bound = 2.0 * std::sqrt(2.0 * 9.81 * kColumnHeight);
  double fastest = 0;
  for (int step = 1; step <= 20; ++step) {
    sim->step();
    const StepStatus status = sim->status();
    ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
    ASSERT_LT(status.max_speed, speed_bound) << "at step " << step;
    fastest = std::max(fastest, double(status.max_speed));
  }
  const std::vector<NamedValue> figures = sim->step_figures();
  const double error_percent = figure(figures, "density_error_percent");
  std::printf("%zu particles: fastest %.3f m/s (bound %.2f), density error %.4f %%\n", setup.fluid.size(),
              fastest, speed_bound, error_percent);
  if (c.solver == std::string("dfsph"))
    EXPECT_LE(error_percent, 100.0 * scene.dfsph.density_error);
  else
    EXPECT_LT(error_percent, 1.0);
}

INSTANTIATE_TEST_SUITE_P(KernelsAndSupports, IncompressibleStability,
                         testing::Values(StabilityCase{"dfsph", KernelType::cubic_spline, 3.0f},
                                         StabilityCase{"dfsph", KernelType::wendland_c2, 3.0f},
                                         StabilityCase{"dfsph", KernelType::cubic_spline, 4.0f},
                                         StabilityCase{"dfsph", KernelType::wendland_c2, 4.0f},
                                         StabilityCase{"pbf", KernelType::cubic_spline, 3.0f},
                                         StabilityCase{"pbf", KernelType::wendland_c2, 3.0f},
                                         StabilityCase{"pbf", KernelType::cubic_spline, 4.0f},
                                         StabilityCase{"pbf", KernelType::wendland_c2, 4.0f}),
                         case_name);

}  // namespace
}  // namespace surge
