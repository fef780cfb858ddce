// DFSPH and PBF on the CPU backend: a tank at rest holds its density and the hydrostatic pressure, the
// density solver converges on a compressed block, the divergence solver removes a velocity divergence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "sim/backend/cpu_executor.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/dfsph_solver.h"
#include "sim/sph/pbf_solver.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

constexpr float kTankWidth = 0.08f;

Scene hydrostatic_tank(const std::string& solver, float spacing, float depth, float width = kTankWidth) {
  Scene scene;
  scene.name = "hydrostatic";
  scene.solver = *parse_solver_kind(solver);
  scene.domain_min = {0.0f, 0.0f, 0.0f};
  scene.domain_max = {width, width, depth + 0.1f};
  scene.walls = {true, true, true, true, true, false};
  scene.spacing = spacing;
  FluidBlock water;
  water.min = {0.0f, 0.0f, 0.0f};
  water.max = {width, width, depth};
  scene.blocks = {water};
  return scene;
}

// One layer of the tank (particles with floor(z / spacing) equal), summed over the frames of the window.
struct LayerSums {
  double pressure = 0;
  double water_depth = 0;  // of each particle: the depth the water above it would fill at rest density [m]
  long samples = 0;
};

struct TankMeasurement {
  double mean_density_error = 0;  // mean |rho/rho0 - 1| in the bulk, time-averaged
  double mean_speed = 0;          // at the end [m/s]
  double surface = 0;             // free surface height at rest density [m]
  std::map<int, LayerSums> layers;
};

TankMeasurement measure_tank(Simulation& sim, const SphSetup& setup, double settle_s, double average_s) {
  TankMeasurement m;
  const double rho0 = setup.params.rest_density;
  const double floor_area = double(kTankWidth) * kTankWidth;
  // The free surface where the water would stand at rest density: volume over the tank's floor area.
  m.surface = double(sim.fluid_count()) * setup.params.particle_mass / rho0 / floor_area;
  double density_error_sum = 0;
  long density_samples = 0;
  ParticleFrame frame;
  std::vector<std::size_t> top_down;
  while (sim.status().time_s < settle_s + average_s) {
    sim.step();
    EXPECT_EQ(sim.status().instability, Instability::none) << sim.status().diagnosis();
    if (sim.status().instability != Instability::none) return m;
    if (sim.status().time_s < settle_s) continue;
    sim.download(frame);
    top_down.resize(frame.size());
    for (std::size_t i = 0; i < frame.size(); ++i) top_down[i] = i;
    std::sort(top_down.begin(), top_down.end(),
              [&](std::size_t a, std::size_t b) { return frame.position[a].z > frame.position[b].z; });
    for (std::size_t rank = 0; rank < top_down.size(); ++rank) {
      const std::size_t i = top_down[rank];
      // Summation density is deficient within one support of the free surface: the bulk is below it.
      if (m.surface - frame.position[i].z > setup.params.support) {
        density_error_sum += std::abs(frame.density[i] / rho0 - 1.0);
        ++density_samples;
      }
      LayerSums& layer = m.layers[int(std::floor(frame.position[i].z / setup.params.spacing))];
      layer.pressure += frame.pressure[i];
      // The particles above it, and half of itself: rho0 g times this depth is the weight of that water per
      // unit of floor area.
      layer.water_depth += (double(rank) + 0.5) * setup.params.particle_mass / rho0 / floor_area;
      layer.samples += 1;
    }
  }
  double speed_sum = 0;
  for (const Vec4f& v : frame.velocity) speed_sum += std::sqrt(double(length_squared(xyz(v))));
  m.mean_speed = speed_sum / double(std::max<std::size_t>(frame.size(), 1));
  m.mean_density_error = density_error_sum / double(std::max<long>(density_samples, 1));
  return m;
}

// Layer-averaged pressure against the weight of the water above the layer's particles per unit of floor area,
// rho0 g d_w with d_w the depth that water would fill at rest density, for the layers at least a quarter of
// the depth down; returns the layers checked. rho0 g d with d the layer's geometric depth below the surface
// is printed beside it, not checked: the particles leave the lattice they start on, the lower part of the
// column for a denser packing and the upper part for a looser, disordered one, at the same summation
// density (a disordered packing sums a larger kernel sum per particle at the same number of particles per
// volume), so the mass above a given height ends 1-2.5 % below a lattice column's and rho0 g d reads the
// upper layers low by up to 4 %, drifting with the repacking. docs/perf/2026-12-04-dfsph-rest.md measures it.
int check_pressure_profile(const TankMeasurement& m, const SphSetup& setup, double depth, double tolerance) {
  const double rho0 = setup.params.rest_density, g = 9.81;
  int checked = 0;
  for (const auto& [layer, sums] : m.layers) {
    const double d = m.surface - (layer + 0.5) * setup.params.spacing;
    if (d < 0.25 * depth) continue;
    const double samples = double(sums.samples);
    const double p = sums.pressure / samples, weight = rho0 * g * sums.water_depth / samples;
    std::printf(
        "depth %.3f m: p = %8.1f Pa, weight above %8.1f Pa (%+.2f %%), rho0 g d = %8.1f Pa (%+.2f %%)\n", d,
        p, weight, 100 * (p / weight - 1), rho0 * g * d, 100 * (p / (rho0 * g * d) - 1));
    EXPECT_NEAR(p / weight, 1.0, tolerance) << "at depth " << d << " m";
    ++checked;
  }
  return checked;
}

// From either start (the zero pressure or the hydrostatic one, [dfsph] hydrostatic_start), the tank settles
// to the same state: the solver's target reached, the bulk at rest density, every layer's pressure the weight
// of the water above it.
TEST(Dfsph, HydrostaticTankHoldsDensityAndPressure) {
  const float spacing = 0.01f, depth = 0.24f;
  for (const bool hydrostatic_start : {false, true}) {
    SCOPED_TRACE(hydrostatic_start ? "hydrostatic start" : "zero start");
    Scene scene = hydrostatic_tank("dfsph", spacing, depth);
    scene.dfsph.viscosity = 1e-3f;  // damps the start-up sloshing within the simulated second
    scene.dfsph.hydrostatic_start = hydrostatic_start;
    const SphSetup setup = build_setup(scene);
    auto sim = make_cpu_dfsph_simulation(setup, scene.dfsph);
    const TankMeasurement m = measure_tank(*sim, setup, 0.5, 0.25);
    const auto figures = sim->step_figures();
    auto figure = [&](const std::string& name) {
      for (const NamedValue& f : figures)
        if (f.name == name) return std::get<double>(f.value);
      ADD_FAILURE() << "no figure " << name;
      return 0.0;
    };
    std::printf(
        "DFSPH, %s start: solver's average density error %.5f %% after %g iterations; bulk mean |rho/rho0 - "
        "1| "
        "%.4f %%; mean speed %.5f m/s\n",
        hydrostatic_start ? "hydrostatic" : "zero", figure("density_error_percent"),
        figure("density_iterations"), 100 * m.mean_density_error, m.mean_speed);
    // The target as DFSPH defines it (BK17, SPlisHSPlasH): the average predicted density excess over all
    // particles, reached within the iteration limit.
    EXPECT_LE(figure("density_error_percent"), 100.0 * scene.dfsph.density_error);
    EXPECT_LT(figure("density_iterations"), scene.dfsph.max_iterations);
    // Measured independently from the positions: |rho/rho0 - 1| in the bulk, which also counts the
    // under-dense particles the solver's excess ignores. 0.02 % is twice the target; measured 0.013 %.
    EXPECT_LT(m.mean_density_error, 2e-4);
    EXPECT_LT(m.mean_speed, 0.02);  // settled: g dt = 0.01 m/s is the speed one step of free fall gives
    // Measured within 1.1 % of the weight above from either start in this window, and within 1.3 % in later
    // ones up to 3 s, where rho0 g d reads -3.7 to -3.9 %: 2 % bounds a layer's scatter about its
    // neighbours' (about 1 %) with a margin, and a wall that carried part of the water (the 15 % of
    // dfsph_physics.h) or a pressure scaled wrongly would exceed it.
    EXPECT_GE(check_pressure_profile(m, setup, depth, 0.02), 15);
  }
}

// The water at rest of a box block (SphSetup::hydrostatic_pressure): each particle's rho0 g (top - z), the
// deepest, half a spacing above the floor, carrying the whole column; a sphere block (a drop) starts at zero;
// without gravity there is none.
TEST(HydrostaticStart, BoxBlocksStartAtRhoGDepthDropsAtZero) {
  const float spacing = 0.01f, depth = 0.24f;
  Scene scene = hydrostatic_tank("dfsph", spacing, depth);
  const SphSetup setup = build_setup(scene);
  const std::vector<float>& p = setup.hydrostatic_pressure;
  ASSERT_EQ(p.size(), setup.fluid.size());
  const double rho_g = setup.params.rest_density * 9.81;
  double largest_difference = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    largest_difference =
        std::max(largest_difference, std::abs(p[i] - rho_g * (depth - setup.fluid.position[i].z)));
  EXPECT_LT(largest_difference, 1e-4 * rho_g * depth);  // float rounding only
  EXPECT_NEAR(*std::max_element(p.begin(), p.end()), rho_g * (depth - 0.5 * spacing), 1e-4 * rho_g * depth);

  Scene drop = scene;
  drop.blocks[0].shape = FluidBlock::Shape::sphere;
  drop.blocks[0].center = {0.5f * kTankWidth, 0.5f * kTankWidth, 0.1f};
  drop.blocks[0].radius = 0.03f;
  const SphSetup drop_setup = build_setup(drop);
  ASSERT_FALSE(drop_setup.hydrostatic_pressure.empty());
  EXPECT_EQ(*std::max_element(drop_setup.hydrostatic_pressure.begin(), drop_setup.hydrostatic_pressure.end()),
            0.0f);

  Scene weightless = scene;
  weightless.gravity = {0.0f, 0.0f, 0.0f};
  EXPECT_TRUE(build_setup(weightless).hydrostatic_pressure.empty());
}

// Started from the hydrostatic pressure ([dfsph] hydrostatic_start), DFSPH's density solve needs fewer
// iterations on the first steps of a deep tank (48 particles deep: measured 206 over the first 5 steps
// against 402 from zero), and the pressure under the water is rho0 g d from the first step.
// A tank at rest with DFSPH's defaults (water's viscosity, 1e-6 m^2/s, which damps nothing at this spacing)
// must stay at rest: its walls may not feed energy into the water. They did while a wall pushed with the
// mirrored pressure 2 q_i but the density felt a particle's velocity toward it once: the solves' system was
// not symmetric and its pressure forces did work (dfsph_physics.h, header comment). Measured (2026-12-05,
// 1,408 particles, 0.4 s): the mean kinetic energy reached 0.166 J/kg and the fastest particle 3.4 m/s
// before, 0.0052 J/kg and 0.31 m/s with the walls' velocity mirrored too. Not zero: the tank starts from a
// lattice at zero pressure and settles, and some growth remains (0.015 J/kg at 0.8 s), which the bounds
// leave room for; the energy a free fall from the surface to the floor would give is 4.4 J/kg.
TEST(Dfsph, TankAtRestTakesNoEnergyFromItsWalls) {
  const Scene scene = hydrostatic_tank("dfsph", 0.02f, 0.45f, 0.16f);
  const SphSetup setup = build_setup(scene);
  auto sim = make_cpu_dfsph_simulation(setup, scene.dfsph);
  double fastest = 0;
  while (sim->status().time_s < 0.4) {
    sim->step();
    ASSERT_EQ(sim->status().instability, Instability::none) << sim->status().diagnosis();
    fastest = std::max(fastest, double(sim->status().max_speed));
  }
  ParticleFrame frame;
  sim->download(frame);
  double energy = 0;
  for (const Vec4f& v : frame.velocity) energy += 0.5 * double(length_squared(xyz(v)));
  energy /= double(frame.size());
  std::printf("%zu particles at t = %.3f s: mean kinetic energy %.3g J/kg, fastest %.3f m/s\n", frame.size(),
              sim->status().time_s, energy, fastest);
  EXPECT_LT(energy, 0.02);
  EXPECT_LT(fastest, 1.0);
}

TEST(Dfsph, HydrostaticStartCutsTheFirstStepsIterations) {
  const float spacing = 0.005f, depth = 0.24f;
  std::map<bool, int> iterations;
  for (const bool start : {false, true}) {
    Scene scene = hydrostatic_tank("dfsph", spacing, depth);
    scene.dfsph.hydrostatic_start = start;
    const SphSetup setup = build_setup(scene);
    auto sim = make_cpu_dfsph_simulation(setup, scene.dfsph);
    for (int step = 0; step < 5; ++step) {
      sim->step();
      for (const NamedValue& f : sim->step_figures())
        if (f.name == "density_iterations") iterations[start] += int(std::get<double>(f.value));
      if (step == 0 && start) {
        ParticleFrame frame;
        sim->download(frame);
        double bottom_sum = 0;
        long bottom_count = 0;
        for (std::size_t i = 0; i < frame.size(); ++i)
          if (frame.position[i].z < spacing) {
            bottom_sum += frame.pressure[i];
            ++bottom_count;
          }
        const double expected = setup.params.rest_density * 9.81 * (depth - 0.5 * spacing);
        std::printf("after the first step: bottom layer p = %.1f Pa, rho0 g d = %.1f Pa (%+.2f %%)\n",
                    bottom_sum / double(bottom_count), expected,
                    100 * (bottom_sum / double(bottom_count) / expected - 1));
        EXPECT_NEAR(bottom_sum / double(bottom_count) / expected, 1.0, 0.05);
      }
    }
  }
  std::printf("density iterations over the first 5 steps: %d from zero, %d from the hydrostatic pressure\n",
              iterations[false], iterations[true]);
  EXPECT_LE(3 * iterations[true], 2 * iterations[false]);  // at least 1.5 times fewer
}

TEST(Pbf, HydrostaticTankHoldsDensityWithinItsIterationBudget) {
  const float spacing = 0.01f, depth = 0.24f;
  Scene scene = hydrostatic_tank("pbf", spacing, depth);
  scene.dt_max = 2e-3f;
  const SphSetup setup = build_setup(scene);
  auto sim = make_cpu_pbf_simulation(setup, scene.pbf);
  const TankMeasurement m = measure_tank(*sim, setup, 0.5, 0.25);
  std::printf("PBF (%d iterations): bulk mean |rho/rho0 - 1| %.4f %%, mean speed %.5f m/s\n",
              scene.pbf.iterations, 100 * m.mean_density_error, m.mean_speed);
  // Four Jacobi iterations at dt = 2 ms leave a compression of about half a percent (measured 0.47 %).
  EXPECT_LT(m.mean_density_error, 1e-2);
  EXPECT_LT(m.mean_speed, 0.05);
  // The pressure of PBF is an estimate from the position corrections (pbf_solver.h): measured within 1.6 %
  // of the weight above here (3.8 % of rho0 g d), against 12 % when the 15 % was set.
  EXPECT_GE(check_pressure_profile(m, setup, depth, 0.15), 15);
}

// A block packed 4 % closer than rest spacing, without gravity: each density iteration must reduce the
// average predicted excess, and the solve must reach the target.
TEST(Dfsph, DensitySolveConvergesOnACompressedBlock) {
  Scene scene = hydrostatic_tank("dfsph", 0.01f, 0.08f);
  scene.gravity = {0.0f, 0.0f, 0.0f};
  SphSetup setup = build_setup(scene);
  const Vec3f center{0.04f, 0.04f, 0.04f};
  for (Vec4f& x : setup.fluid.position) {
    x.x = center.x + 0.96f * (x.x - center.x);
    x.y = center.y + 0.96f * (x.y - center.y);
    x.z = center.z + 0.96f * (x.z - center.z);
  }
  CpuExecutor exec(*std::make_unique<TransferLedger>());
  DfsphSolver<CpuExecutor> solver(exec, setup, scene.dfsph);
  with_kernel(setup.params.kernel, setup.params.support, [&](const auto& kernel) {
    solver.step(kernel);
    return 0;
  });
  const std::vector<double>& history = solver.figures().density_error_history;
  ASSERT_GE(history.size(), 3u);
  std::printf("density error per iteration (%%):");
  for (double e : history) std::printf(" %.5f", 100 * e);
  std::printf("\n");
  EXPECT_GT(history.front(), 0.01) << "the block must start compressed by more than 1 %";
  for (std::size_t k = 1; k < history.size(); ++k) EXPECT_LT(history[k], history[k - 1]) << "iteration " << k;
  EXPECT_LE(history.back(), double(scene.dfsph.density_error));
}

// A velocity field converging on the block's centre, v = -c (x - centre): the divergence solve must bring the
// average D rho/Dt dt / rho0 below its target, measured afresh from the corrected velocities.
TEST(Dfsph, DivergenceSolveRemovesAConvergingFlow) {
  Scene scene = hydrostatic_tank("dfsph", 0.01f, 0.08f);
  scene.gravity = {0.0f, 0.0f, 0.0f};
  SphSetup setup = build_setup(scene);
  const Vec3f center{0.04f, 0.04f, 0.04f};
  const float c = 10.0f;  // [1/s]: D rho/Dt = 3 c rho0 in the bulk
  for (std::size_t i = 0; i < setup.fluid.size(); ++i) {
    const Vec3f x = xyz(setup.fluid.position[i]);
    setup.fluid.velocity[i] = make_vec4(-c * (x - center), 0.0f);
  }
  CpuExecutor exec(*std::make_unique<TransferLedger>());
  DfsphSolver<CpuExecutor> solver(exec, setup, scene.dfsph);
  FluidState<CpuExecutor>& fluid = solver.fluid();
  const float dt = fluid.status.dt_s;
  auto average_rate_error = [&](const auto& kernel) {
    double sum = 0;
    for (std::uint32_t i = 0; i < fluid.n; ++i) {
      // As the solver defines it: free-surface particles (too few neighbours) are not held to the target.
      const DfsphParticleTerms terms =
          dfsph_factor(kernel, fluid.params, fluid.grid, fluid.fluid_view(), fluid.boundary_view(), i);
      if (terms.factor.neighbors < scene.dfsph.surface_neighbor_count) continue;
      const float rate = density_rate(kernel, fluid.params, fluid.grid, fluid.fluid_view(),
                                      fluid.velocity.data(), terms.wall, i);
      sum += std::max(rate, 0.0f);
    }
    return sum / fluid.n * dt / fluid.params.rest_density;
  };
  with_kernel(setup.params.kernel, setup.params.support, [&](const auto& kernel) {
    fluid.sort_by_cell();
    solver.compute_density_and_factor(kernel);
    const double before = average_rate_error(kernel);
    solver.solve_divergence(kernel);
    const double after = average_rate_error(kernel);
    std::printf("average D rho/Dt dt / rho0: %.5f %% before, %.5f %% after %d iterations\n", 100 * before,
                100 * after, solver.figures().divergence_iterations);
    EXPECT_GT(before, 10 * double(scene.dfsph.divergence_error));
    EXPECT_LE(after, double(scene.dfsph.divergence_error));
    return 0;
  });
}

// The walls' terms the factor pass stores (DfsphWallTerms) stand in for the wall sums of every iteration
// pass: v_i . G_i - c_i must be sum_b rho0 V_b (v_i - v_b) . grad W_ib, and G_i must be rho0 sum_b V_b grad
// W_ib, summed directly here for every particle of a tank at rest with a stirred velocity field (walls at
// rest: c_i = 0; the moving solids' tests run the v_b part).
TEST(Dfsph, StoredWallTermsEqualTheDirectWallSums) {
  Scene scene = hydrostatic_tank("dfsph", 0.01f, 0.08f);
  SphSetup setup = build_setup(scene);
  for (std::size_t i = 0; i < setup.fluid.size(); ++i) {
    const Vec3f x = xyz(setup.fluid.position[i]);
    setup.fluid.velocity[i] =
        make_vec4(Vec3f{std::sin(40.0f * x.y), std::cos(30.0f * x.z), x.x - 0.04f}, 0.0f);
  }
  CpuExecutor exec(*std::make_unique<TransferLedger>());
  DfsphSolver<CpuExecutor> solver(exec, setup, scene.dfsph);
  FluidState<CpuExecutor>& fluid = solver.fluid();
  fluid.sort_by_cell();
  with_kernel(setup.params.kernel, setup.params.support, [&](const auto& kernel) {
    const SphParameters& p = fluid.params;
    const CellIndexView boundary = fluid.boundary_view();
    int near_walls = 0;
    for (std::uint32_t i = 0; i < fluid.n; ++i) {
      const Vec3f x_i = xyz(fluid.position[i]);
      const Vec3f v_i = xyz(fluid.velocity[i]);
      Vec3f gradient_sum{};
      double rate = 0.0;
      // The sums' scale, for float tolerances: terms of both signs cancel in them.
      double gradient_scale = 0.0, rate_scale = 0.0;
      for_each_neighbor(
          fluid.grid, boundary, x_i, p.support * p.support, [&](std::uint32_t b, Vec3f r_ib, float r2) {
            const Vec3f grad =
                (p.rest_density * boundary.positions[b].w) * kernel.gradient(r_ib, std::sqrt(r2));
            gradient_sum += grad;
            rate += double(dot(v_i, grad));
            gradient_scale += std::sqrt(double(length_squared(grad)));
            rate_scale += std::sqrt(double(length_squared(v_i)) * double(length_squared(grad)));
          });
      const DfsphWallTerms wall = dfsph_factor(kernel, p, fluid.grid, fluid.fluid_view(), boundary, i).wall;
      const double tolerance = 1e-5 * gradient_scale;
      EXPECT_NEAR(wall.sums.x, gradient_sum.x, tolerance) << i;
      EXPECT_NEAR(wall.sums.y, gradient_sum.y, tolerance) << i;
      EXPECT_NEAR(wall.sums.z, gradient_sum.z, tolerance) << i;
      EXPECT_EQ(wall.sums.w, 0.0f) << i;
      EXPECT_NEAR(dot(v_i, xyz(wall.sums)) - wall.sums.w, rate, 1e-5 * rate_scale) << i;
      if (gradient_scale > 0.0) ++near_walls;
    }
    // The check is not empty: a tank 8 spacings wide has most of its particles within reach of a wall.
    EXPECT_GT(near_walls, int(fluid.n) / 2);
    return 0;
  });
}

}  // namespace
}  // namespace surge
