// Cells of half a support on the GPU ([resolution] cells_per_support = 2): the device index of a half-cell
// grid delimits the same cells as the CPU's, and every fluid solver steps to the results it reaches with
// cells of one support, on the GPU and as the CPU does with half cells, with the same neighbours and fewer
// candidates in the census (tests/sim/half_cell_search_test.cpp is the CPU's side).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/core/device_buffer.h"
#include "sim/index/cell_index_cpu.h"
#include "sim/index/cell_index_gpu.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"
#include "tests/gpu/downloaded_cell_index.h"
#include "tests/gpu/particle_comparison.h"
#include "tests/sim/half_cell_cases.h"
#include "tests/sim/summation_order_twin.h"

namespace surge {
namespace {

class HalfCellGpuIndex : public ::testing::TestWithParam<IndexBuild> {};

TEST_P(HalfCellGpuIndex, DelimitsTheCellsTheCpuDelimits) {
  // Half cells of support 0.05 m over a box 1.013 x 0.607 x 0.811 m: no whole number of cells, and 8 times
  // the cells (and one more key bit per axis) of the whole-cell grid.
  const float support = 0.05f;
  GridGeometry grid;
  grid.cells_per_support = 2;
  grid.cell_size = support / 2;
  grid.inv_cell_size = 1.0f / grid.cell_size;
  grid.nx = int(std::ceil(1.013f / grid.cell_size));
  grid.ny = int(std::ceil(0.607f / grid.cell_size));
  grid.nz = int(std::ceil(0.811f / grid.cell_size));
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> ux(-0.02f, 1.03f), uy(-0.02f, 0.62f), uz(-0.02f, 0.83f);
  std::vector<Vec4f> points(50000);
  for (auto& p : points) p = {ux(rng), uy(rng), uz(rng), 0};

  const auto [order, cell_start] = build_on_device(grid, points, GetParam());
  CpuCellIndex cpu;
  cpu.build(grid, points);
  EXPECT_EQ(cell_start, cpu.cell_start());
  if (GetParam() == IndexBuild::radix_sort) {
    EXPECT_EQ(order, cpu.sorted_order()) << "stable, as the CPU's";
  }
}

INSTANTIATE_TEST_SUITE_P(Builds, HalfCellGpuIndex,
                         ::testing::Values(IndexBuild::radix_sort, IndexBuild::counting_sort));

// The tolerances of solver_equivalence_test.cpp (rounding; one missing neighbour moves a particle by more).
class HalfCellGpuSolvers : public ::testing::TestWithParam<HalfCellSolverCase> {};

TEST_P(HalfCellGpuSolvers, StepLikeWholeCellsAndLikeTheCpu) {
  const HalfCellSolverCase c = GetParam();
  const Scene scene = half_cell_case_scene(c);
  Scene half_scene = scene;
  half_scene.cells_per_support = 2;
  const SimulationOptions options{.particles_override = 20000};
  auto gpu_whole = make_simulation(scene, ExecutionMode::gpu, options);
  auto gpu_half = make_simulation(half_scene, ExecutionMode::gpu, options);
  auto cpu_half = make_simulation(half_scene, ExecutionMode::cpu, options);
  auto twin = make_reversed_simulation(scene, ExecutionMode::gpu, options);
  const std::vector<Vec4f> start = positions_by_id(*gpu_whole);
  for (int s = 0; s < c.steps; ++s) {
    gpu_whole->step();
    gpu_half->step();
    cpu_half->step();
    twin->step();
  }
  for (Simulation* sim : {gpu_whole.get(), gpu_half.get(), cpu_half.get(), twin.get()})
    ASSERT_EQ(sim->status().instability, Instability::none) << sim->status().diagnosis();
  const double spacing = build_setup(scene, options.particles_override).params.spacing;
  const std::vector<Vec4f> whole = positions_by_id(*gpu_whole), half = positions_by_id(*gpu_half),
                           cpu = positions_by_id(*cpu_half);
  const double half_vs_whole = largest_difference(half, whole), gpu_vs_cpu = largest_difference(half, cpu);
  const double travelled = largest_difference(whole, start);
  // Half cells sum each particle's neighbours in another order than whole cells, and the CPU in another
  // than the GPU: the case's tolerance, or kSummationOrderFactor times what the whole-cell run differs from
  // itself with its particles reversed (tests/sim/summation_order_twin.h) where that is more (on the H200
  // DFSPH and PBF read 1.1e-2 and 1.4e-2 spacings in one build against 1e-2), up to ten times the tolerance.
  const double allowed = summation_order_bound(
      (std::string(c.name) + " gpu whole cells, particles reversed [spacings]").c_str(),
      largest_difference(whole, positions_by_id(*twin)) / spacing, c.tolerance, 10 * c.tolerance);
  std::printf(
      "%s, %zu particles, %d steps: GPU half - whole cells %.3e spacings, GPU - CPU half cells %.3e "
      "spacings (allowed %.3e); largest travel %.3e m\n",
      c.name, whole.size(), c.steps, half_vs_whole / spacing, gpu_vs_cpu / spacing, allowed, travelled);
  EXPECT_LT(half_vs_whole, allowed * spacing);
  EXPECT_LT(gpu_vs_cpu, allowed * spacing);
  EXPECT_GT(travelled, 10 * std::max(half_vs_whole, gpu_vs_cpu));

  const std::vector<NamedValue> census_whole = gpu_whole->neighbor_census(),
                                census_half = gpu_half->neighbor_census(),
                                census_cpu = cpu_half->neighbor_census();
  const double n_whole = census_figure(census_whole, "neighbors_per_particle");
  const double n_half = census_figure(census_half, "neighbors_per_particle");
  const double n_cpu = census_figure(census_cpu, "neighbors_per_particle");
  const double c_whole = census_figure(census_whole, "candidates_per_neighbor");
  const double c_half = census_figure(census_half, "candidates_per_neighbor");
  const double c_cpu = census_figure(census_cpu, "candidates_per_neighbor");
  std::printf(
      "%s census: neighbours a particle %.3f (GPU whole) %.3f (GPU half) %.3f (CPU half); candidates a "
      "neighbour %.3f / %.3f / %.3f\n",
      c.name, n_whole, n_half, n_cpu, c_whole, c_half, c_cpu);
  EXPECT_NEAR(n_half, n_whole, 1e-3 * n_whole);
  EXPECT_NEAR(n_half, n_cpu, 1e-3 * n_cpu);
  EXPECT_NEAR(c_half, c_cpu, 1e-2 * c_cpu);
  EXPECT_LT(c_half, 0.6 * c_whole);
  EXPECT_EQ(census_figure(census_half, "index_cells_per_support"), 2.0);
}

INSTANTIATE_TEST_SUITE_P(Solvers, HalfCellGpuSolvers, ::testing::ValuesIn(kHalfCellSolverCases),
                         half_cell_case_name);

}  // namespace
}  // namespace surge
