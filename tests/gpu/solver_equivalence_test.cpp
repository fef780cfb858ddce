// One CPU/GPU equivalence test typed over the five solvers: each runs the same scene through the factory on
// the CPU executor and on the CUDA executor (the same StepSolver template, sim/core/solver.h), and the GPU
// must follow the CPU particle by particle and step without moving particle data over the bus. The per-solver
// tests beside this one go deeper (iteration counts, spin and springs, every gravity method); this one holds
// the shape: a solver added to the table gets its case here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/dem/dem_setup.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"
#include "tests/gpu/particle_comparison.h"

namespace surge {
namespace {

// What the copies of a GPU step may be: nothing, or the iterative solvers' reductions (8 bytes each), whose
// results the host needs to decide whether to iterate.
void expect_no_particle_data(const TransferLedger& ledger, const char* solver) {
  for (const auto& [key, entry] : ledger.entries()) {
    std::printf("%s: stepping copied %zu bytes in %zu copies for \"%s\"\n", solver, entry.bytes, entry.copies,
                key.second.c_str());
    EXPECT_EQ(key.first, CopyDirection::device_to_host) << key.second;
    EXPECT_NE(key.second.find("solver reduction"), std::string::npos) << key.second;
    EXPECT_LE(entry.bytes, entry.copies * sizeof(double)) << key.second;
  }
}

// The tolerances are those of the per-solver tests, whose comments derive them: rounding alone (FMA
// contraction, sqrtf and powf implementations, sums in another order) stays far below them over these step
// counts, while one missing or doubled neighbour, contact or body moves a particle by more.
struct Wcsph {
  static constexpr const char* kScene = "dam_break.toml";
  static constexpr SolverKind kSolver = SolverKind::wcsph;
  static constexpr long kParticles = 20000;
  static constexpr int kSteps = 100;
  static constexpr double kTolerance = 1e-3;  // spacings (gpu_equivalence_test.cpp)
  static void adjust(Scene&) {}
  static double length(const Scene& scene) { return build_setup(scene, kParticles).params.spacing; }
};
// WCSPH with continuity density and delta-SPH diffusion: the density is carried (sorted with the particles)
// and integrated on the device, its rate summed in the force pass. The tolerance is the summation case's:
// the carried density adds rounding of its own each step, but at 100 steps it stays far below what one
// missing neighbour or a density left behind by the sort would do (a whole rho0 dt D rho/Dt per step).
struct WcsphContinuity {
  static constexpr const char* kScene = "dam_break.toml";
  static constexpr SolverKind kSolver = SolverKind::wcsph;
  static constexpr long kParticles = 20000;
  static constexpr int kSteps = 100;
  static constexpr double kTolerance = 1e-3;  // spacings
  static void adjust(Scene& scene) {
    scene.continuity_density = true;
    scene.density_diffusion = 0.1f;
  }
  static double length(const Scene& scene) { return build_setup(scene, kParticles).params.spacing; }
};

// Fixed iteration counts (as gpu_incompressible_test.cpp): an adaptive count that ends one iteration apart
// on the two sides is a rounding matter, not a wrong pass, and would blur the comparison.
void fixed_iterations(Scene& scene) {
  scene.dfsph.min_iterations = scene.dfsph.max_iterations = 4;
  scene.dfsph.density_error = 1e-6f;    // never reached in 4 iterations
  scene.dfsph.divergence_error = 1.0f;  // reached at once: one divergence iteration
  scene.pbf.density_error = 0.0f;       // PBF runs its fixed count
}
struct Dfsph {
  static constexpr const char* kScene = "dam_break.toml";
  static constexpr SolverKind kSolver = SolverKind::dfsph;
  static constexpr long kParticles = 20000;
  static constexpr int kSteps = 30;
  static constexpr double kTolerance = 1e-2;  // spacings (gpu_incompressible_test.cpp)
  static void adjust(Scene& scene) { fixed_iterations(scene); }
  static double length(const Scene& scene) { return build_setup(scene, kParticles).params.spacing; }
};
struct Pbf {
  static constexpr const char* kScene = "dam_break.toml";
  static constexpr SolverKind kSolver = SolverKind::pbf;
  static constexpr long kParticles = 20000;
  static constexpr int kSteps = 30;
  static constexpr double kTolerance = 1e-2;  // spacings (gpu_incompressible_test.cpp)
  static void adjust(Scene& scene) { fixed_iterations(scene); }
  static double length(const Scene& scene) { return build_setup(scene, kParticles).params.spacing; }
};
struct Dem {
  static constexpr const char* kScene = "granular_column.toml";
  static constexpr SolverKind kSolver = SolverKind::dem;
  static constexpr long kParticles = 0;  // the scene's own grains
  static constexpr int kSteps = 100;
  static constexpr double kTolerance = 1e-2;  // grain radii (dem_equivalence_test.cpp)
  static void adjust(Scene&) {}
  static double length(const Scene& scene) { return build_dem_setup(scene).params.max_radius; }
};
struct Nbody {
  static constexpr const char* kScene = "plummer.toml";  // all pairs, tiled on the GPU
  static constexpr SolverKind kSolver = SolverKind::nbody;
  static constexpr long kParticles = 4096;
  static constexpr int kSteps = 40;
  static constexpr double kTolerance = 1e-4;  // virial radii (nbody_gravity_test.cpp: float forces, 1e-5)
  static void adjust(Scene&) {}
  static double length(const Scene&) { return 1.0; }  // G = M = 1, virial radius 1
};

template <typename Case>
class SolverEquivalence : public ::testing::Test {};
using Solvers = ::testing::Types<Wcsph, WcsphContinuity, Dfsph, Pbf, Dem, Nbody>;
TYPED_TEST_SUITE(SolverEquivalence, Solvers);

TYPED_TEST(SolverEquivalence, GpuFollowsTheCpuAndStepsWithoutParticleData) {
  using Case = TypeParam;
  Scene scene = load_scene(std::string(SURGE_SOURCE_DIR "/scenes/") + Case::kScene);
  scene.solver = Case::kSolver;
  Case::adjust(scene);
  const char* solver = solver_name(Case::kSolver);
  const SimulationOptions options{.particles_override = Case::kParticles};
  auto cpu = make_simulation(scene, ExecutionMode::cpu, options);
  auto gpu = make_simulation(scene, ExecutionMode::gpu, options);
  const std::vector<Vec4f> start = positions_by_id(*cpu);
  gpu->status();
  gpu->ledger().clear();
  for (int s = 0; s < Case::kSteps; ++s) {
    cpu->step();
    gpu->step();
  }
  expect_no_particle_data(gpu->ledger(), solver);

  const StepStatus cpu_status = cpu->status(), gpu_status = gpu->status();
  ASSERT_EQ(cpu_status.instability, Instability::none) << cpu_status.diagnosis();
  ASSERT_EQ(gpu_status.instability, Instability::none) << gpu_status.diagnosis();
  EXPECT_EQ(gpu_status.step, cpu_status.step);
  EXPECT_NEAR(gpu_status.time_s, cpu_status.time_s, 1e-6 * cpu_status.time_s);
  const std::vector<Vec4f> a = positions_by_id(*cpu), b = positions_by_id(*gpu);
  ASSERT_EQ(a.size(), b.size());
  const double largest = largest_difference(a, b), travelled = largest_difference(a, start);
  const double length = Case::length(scene);
  std::printf(
      "%s, %zu particles, %d steps: largest CPU-GPU difference %.3e = %.3e of the length scale "
      "(allowed %.0e); largest travel %.3e\n",
      solver, a.size(), Case::kSteps, largest, largest / length, Case::kTolerance, travelled);
  EXPECT_LT(largest, Case::kTolerance * length);
  EXPECT_GT(travelled, 10 * largest) << "the particles moved, so the comparison means something";
}

}  // namespace
}  // namespace surge
