// DFSPH and PBF on the GPU compute what they compute on the CPU, and their steps move no particle data over
// the bus: only the 4- or 8-byte results of the reductions the host needs to decide on iterating.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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
      EXPECT_NE(key.second.find("solver reduction"), std::string::npos) << key.second;
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

}  // namespace
}  // namespace surge
