// The emitter on the GPU: the GPU WCSPH backend decides and writes layers on the device and emits what the
// CPU emits, at the same steps and in the same places, with nothing crossing the bus; the incompressible
// solvers' GPU runs emit the same counts as their CPU runs.
#include <gtest/gtest.h>

#include <cstdio>

#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/simulation.h"
#include "sim/scene/scene.h"
#include "sim/sph/sph_setup.h"
#include "tests/gpu/particle_comparison.h"

namespace surge {
namespace {

// scenes/fountain.toml: 12,000 pool particles, a nozzle of 13 particles a layer, a layer every 0.0067 s.
SphSetup fountain_setup() {
  return build_setup(load_scene(SURGE_SOURCE_DIR "/scenes/fountain.toml"));
}

// dt is about 6.5e-5 s (c0 about 37 m/s): 800 steps are about 0.05 s, seven or eight layers.
constexpr int kSteps = 800;

TEST(GpuEmitter, WcsphEmitsTheSameCountAtTheSameStepsAndPositionsAgree) {
  const SphSetup setup = fountain_setup();
  ASSERT_TRUE(setup.emitter.present);
  const std::size_t layer = setup.emitter.nozzle.layer_size;
  auto cpu = make_cpu_simulation(setup);
  auto gpu = make_cuda_simulation(setup);
  for (int s = 0; s < kSteps; ++s) {
    cpu->step();
    gpu->step();
    const StepStatus gpu_status = gpu->status();  // refreshes the GPU's count
    ASSERT_EQ(gpu_status.instability, Instability::none) << gpu_status.diagnosis();
    ASSERT_EQ(gpu->fluid_count(), cpu->fluid_count()) << "at step " << s + 1;
  }
  const std::size_t emitted = cpu->fluid_count() - setup.fluid.size();
  EXPECT_GE(emitted, 5 * layer) << "layers entered, so the comparison means something";
  const auto a = positions_by_id(*cpu), b = positions_by_id(*gpu);
  ASSERT_EQ(a.size(), b.size());
  const double largest = largest_difference(a, b);
  std::printf("after %d steps: %zu particles emitted; largest CPU-GPU position difference %.3e spacings\n",
              kSteps, emitted, largest / setup.params.spacing);
  // The tolerance of GpuEquivalence.DamBreakHundredStepsMatchesTheCpu (gpu_equivalence_test.cpp): rounding
  // only; a layer placed differently would be off by a good part of a spacing.
  EXPECT_LT(largest, 1e-3 * setup.params.spacing);
}

TEST(GpuEmitter, WcsphLedgerStaysAtZeroWhileEmitting) {
  const SphSetup setup = fountain_setup();
  auto gpu = make_cuda_simulation(setup);
  gpu->status();
  gpu->ledger().clear();
  for (int s = 0; s < kSteps; ++s) gpu->step();
  EXPECT_EQ(gpu->ledger().total_bytes(), 0u);
  const StepStatus status = gpu->status();
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  EXPECT_GE(gpu->fluid_count(), setup.fluid.size() + 5 * setup.emitter.nozzle.layer_size)
      << "the layers entered without the host";
}

TEST(GpuEmitter, WcsphFullCapacityStopsOnTheDevice) {
  SphSetup setup = fountain_setup();
  setup.emitter.max_particles = 3 * setup.emitter.nozzle.layer_size;
  auto gpu = make_cuda_simulation(setup);
  for (int s = 0; s < kSteps; ++s) gpu->step();
  const StepStatus status = gpu->status();
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  EXPECT_TRUE(status.emitter_full);
  EXPECT_EQ(gpu->fluid_count(), setup.capacity());
}

TEST(GpuEmitter, IncompressibleSolversEmitWhatTheCpuEmits) {
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/fountain.toml");
  const SphSetup setup = build_setup(scene);
  for (const bool dfsph : {true, false}) {
    auto cpu =
        dfsph ? make_cpu_dfsph_simulation(setup, scene.dfsph) : make_cpu_pbf_simulation(setup, scene.pbf);
    auto gpu =
        dfsph ? make_cuda_dfsph_simulation(setup, scene.dfsph) : make_cuda_pbf_simulation(setup, scene.pbf);
    for (int s = 0; s < 200; ++s) {
      cpu->step();
      gpu->step();
      ASSERT_EQ(gpu->fluid_count(), cpu->fluid_count()) << (dfsph ? "dfsph" : "pbf") << " step " << s + 1;
    }
    EXPECT_GT(cpu->fluid_count(), setup.fluid.size()) << (dfsph ? "dfsph" : "pbf");
    const StepStatus status = gpu->status();
    EXPECT_EQ(status.instability, Instability::none) << status.diagnosis();
  }
}

}  // namespace
}  // namespace surge
