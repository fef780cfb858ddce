// DFSPH and PBF on the GPU compute what they compute on the CPU, and their steps move no particle data over
// the bus: only the 4- or 8-byte results of the reductions the host needs to decide on iterating.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "sim/backend/incompressible_simulation.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"
#include "tests/gpu/particle_comparison.h"

namespace surge {
namespace {

double figure(Simulation& sim, const std::string& name) {
  for (const NamedValue& f : sim.step_figures())
    if (f.name == name) return std::get<double>(f.value);
  ADD_FAILURE() << "no figure " << name;
  return 0;
}

// The iterations stop on averages that the CPU and the GPU sum in different orders, so near a threshold one
// side may run an iteration more (measured: 128 against 129 DFSPH iterations over 30 steps, 0.04 spacings
// apart). Here the iteration counts are fixed, so what differs is rounding alone; iteration_counts_agree
// checks the adaptive counts.
void compare_backends(const std::string& solver, int steps, bool hydrostatic_start = false,
                      double allowed_spacings = 1e-2) {
  Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  scene.solver = *parse_solver_kind(solver);
  scene.dfsph.hydrostatic_start = hydrostatic_start;
  scene.dfsph.min_iterations = scene.dfsph.max_iterations = 4;
  scene.dfsph.density_error = 1e-6f;    // never reached in 4 iterations
  scene.dfsph.divergence_error = 1.0f;  // reached at once: one divergence iteration
  scene.pbf.density_error = 0.0f;       // PBF runs its fixed count anyway
  const SphSetup setup = build_setup(scene, 20000);
  auto cpu = solver == "dfsph" ? make_cpu_dfsph_simulation(setup, scene.dfsph)
                               : make_cpu_pbf_simulation(setup, scene.pbf);
  auto gpu = solver == "dfsph" ? make_cuda_dfsph_simulation(setup, scene.dfsph)
                               : make_cuda_pbf_simulation(setup, scene.pbf);
  const std::string iterations = solver == "dfsph" ? "density_iterations" : "iterations";
  long cpu_iterations = 0, gpu_iterations = 0;
  for (int s = 0; s < steps; ++s) {
    cpu->step();
    gpu->step();
    cpu_iterations += long(figure(*cpu, iterations));
    gpu_iterations += long(figure(*gpu, iterations));
  }
  const StepStatus cpu_status = cpu->status(), gpu_status = gpu->status();
  ASSERT_EQ(gpu_status.instability, Instability::none) << gpu_status.diagnosis();
  const auto a = positions_by_id(*cpu), b = positions_by_id(*gpu);
  const double largest = largest_difference(a, b);
  double travelled = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    travelled =
        std::max(travelled, std::sqrt(double(length_squared(xyz(a[i]) - xyz(setup.fluid.position[i])))));
  std::printf(
      "%s, %d steps (t = %.4f s): %ld iterations on the CPU, %ld on the GPU; largest position difference "
      "%.3e m = %.3e spacings; largest distance travelled %.3e m\n",
      solver.c_str(), steps, cpu_status.time_s, cpu_iterations, gpu_iterations, largest,
      largest / setup.params.spacing, travelled);
  // The iterations stop on an average that both sides sum in double but in a different order; a step that
  // ends an iteration apart changes positions by a fraction of the density target times the spacing, far
  // below the 1e-2 spacing allowed. A missing neighbour or a wrong pass moves particles by spacings.
  EXPECT_LT(largest, allowed_spacings * setup.params.spacing);
  EXPECT_GT(travelled, 10 * largest);
  EXPECT_NEAR(double(gpu_iterations), double(cpu_iterations), 0.05 * double(cpu_iterations));
}

TEST(GpuIncompressible, DfsphMatchesTheCpu) {
  compare_backends("dfsph", 30);
}
// [dfsph] hydrostatic_start: the first step's pressure sums uploaded from the setup. The column then falls
// from its first step, and in these 30 steps its particles travel 2.7 times as far as from the zero start
// (measured on the H200, 2026-12-04: 2.37e-2 m against 8.73e-3 m), and the rounding grows with the motion:
// 1.50e-2 spacings apart, 0.4 % of the distance travelled (the zero start: 0.87e-2, 0.7 %). So 3e-2 spacings
// here; a pressure sum uploaded to the wrong particles would move them by spacings.
TEST(GpuIncompressible, DfsphFromTheHydrostaticStartMatchesTheCpu) {
  compare_backends("dfsph", 30, true, 3e-2);
}
TEST(GpuIncompressible, PbfMatchesTheCpu) {
  compare_backends("pbf", 30);
}

TEST(GpuIncompressible, StepsMoveOnlyReductionResults) {
  for (const std::string solver : {"dfsph", "pbf"}) {
    Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
    scene.solver = *parse_solver_kind(solver);
    const SphSetup setup = build_setup(scene, 100000);
    auto gpu = solver == "dfsph" ? make_cuda_dfsph_simulation(setup, scene.dfsph)
                                 : make_cuda_pbf_simulation(setup, scene.pbf);
    gpu->step();
    gpu->ledger().clear();
    for (int s = 0; s < 20; ++s) gpu->step();
    std::size_t copies = 0, bytes = 0;
    for (const auto& [key, entry] : gpu->ledger().entries()) {
      std::printf("%s: %s: %zu copies, %zu bytes\n", solver.c_str(), key.second.c_str(), entry.copies,
                  entry.bytes);
      EXPECT_EQ(key.first, CopyDirection::device_to_host);
      // The reductions the host decides on, and the neighbour lists' lengths it allocates by.
      EXPECT_TRUE(key.second.find("solver reduction") != std::string::npos ||
                  key.second == "neighbour list length")
          << key.second;
      EXPECT_LE(entry.bytes, entry.copies * sizeof(double));
      copies += entry.copies;
      bytes += entry.bytes;
    }
    std::printf("%s: %zu bytes over the bus in 20 steps of %zu particles\n", solver.c_str(), bytes,
                gpu->fluid_count());
    EXPECT_GT(copies, 0u);
    EXPECT_LT(bytes, 20u * 1024u);  // a particle array would be 100000 x 16 bytes
  }
}

// The per-step neighbour lists (CudaExecutor::build_neighbor_lists) hold the cell walk's neighbours in its
// order. DFSPH's positions stand still through its solves, so its passes see the same pairs in the same order
// either way: the same bits. PBF's move between its sorts; the lists keep the neighbours of the step's start
// (as on the CPU, and as Macklin & Mueller find them, once a step), where the cells would also find a
// particle that came within the support during the iterations. That is another model, not rounding: measured
// on the H200 (2026-12-04), 0.076 and 0.091 spacings apart after these 60 steps, in which the column's
// particles travel up to 5.3 spacings. A list missing neighbours or a pass reading the wrong one moves
// particles by spacings, or makes the column blow apart; 0.25 spacings is allowed.
class GpuNeighborListsSolvers : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(GpuNeighborListsSolvers, StepAsTheCellWalksDo) {
  const auto& [solver, cells_per_support] = GetParam();
  Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  scene.solver = *parse_solver_kind(solver);
  scene.cells_per_support = cells_per_support;
  const SphSetup setup = build_setup(scene, 20000);
  auto make = [&](bool lists) {
    return solver == "dfsph" ? make_cuda_dfsph_simulation(setup, scene.dfsph, IndexBuild::radix_sort, lists)
                             : make_cuda_pbf_simulation(setup, scene.pbf, IndexBuild::radix_sort, lists);
  };
  auto listed = make(true), walked = make(false);
  for (int s = 0; s < 60; ++s) {
    listed->step();
    walked->step();
  }
  ASSERT_EQ(listed->status().instability, Instability::none) << listed->status().diagnosis();
  const auto a = positions_by_id(*listed), b = positions_by_id(*walked);
  double travelled = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    travelled =
        std::max(travelled, std::sqrt(double(length_squared(xyz(a[i]) - xyz(setup.fluid.position[i])))));
  const double largest = largest_difference(a, b);
  const double entries = figure(*listed, "neighbor_list_entries");
  std::printf(
      "%s, %d cells a support, 60 steps: %.1f listed neighbours a particle (fluid and wall); largest "
      "position difference from the cell walks %.3e spacings; largest distance travelled %.3e m\n",
      solver.c_str(), cells_per_support, entries / double(listed->fluid_count()),
      largest / setup.params.spacing, travelled);
  // Cubic spline, support 2 spacings: about 29 fluid neighbours a particle with itself, more at the walls.
  EXPECT_GT(entries / double(listed->fluid_count()), 25.0);
  EXPECT_LT(entries / double(listed->fluid_count()), 60.0);
  for (const NamedValue& f : walked->step_figures()) EXPECT_NE(f.name, "neighbor_list_entries");
  EXPECT_GT(travelled, 0.1 * setup.params.spacing);
  if (solver == "dfsph")
    EXPECT_EQ(largest, 0.0);
  else
    EXPECT_LT(largest, 0.25 * setup.params.spacing);
}

INSTANTIATE_TEST_SUITE_P(SolversAndCells, GpuNeighborListsSolvers,
                         ::testing::Combine(::testing::Values("dfsph", "pbf"), ::testing::Values(1, 2)));

}  // namespace
}  // namespace surge
