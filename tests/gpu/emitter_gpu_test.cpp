// The emitter on the GPU: the GPU WCSPH backend decides and writes layers on the device and emits what the
// CPU emits, at the same steps and in the same places, with nothing crossing the bus; the incompressible
// solvers' GPU runs emit the same counts as their CPU runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/simulation.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
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
  const double spacing = setup.params.spacing;
  auto cpu = make_cpu_simulation(setup);
  auto gpu = make_cuda_simulation(setup);
  double largest_at_birth = 0;
  std::vector<double> largest_every_100;
  std::size_t layers_compared = 0;
  for (int s = 0; s < kSteps; ++s) {
    const std::size_t before = cpu->fluid_count();
    cpu->step();
    gpu->step();
    const StepStatus gpu_status = gpu->status();  // refreshes the GPU's count
    ASSERT_EQ(gpu_status.instability, Instability::none) << gpu_status.diagnosis();
    ASSERT_EQ(gpu->fluid_count(), cpu->fluid_count()) << "at step " << s + 1;
    if (cpu->fluid_count() > before) {
      // A layer entered this step: where each new particle stands, by id, on both.
      const auto a = positions_by_id(*cpu), b = positions_by_id(*gpu);
      for (std::size_t id = before; id < a.size(); ++id)
        largest_at_birth =
            std::max(largest_at_birth, double(std::sqrt(length_squared(xyz(a[id]) - xyz(b[id])))));
      ++layers_compared;
    }
    if ((s + 1) % 100 == 0)
      largest_every_100.push_back(largest_difference(positions_by_id(*cpu), positions_by_id(*gpu)) / spacing);
  }
  const std::size_t emitted = cpu->fluid_count() - setup.fluid.size();
  EXPECT_GE(emitted, 5 * layer) << "layers entered, so the comparison means something";
  std::printf(
      "%zu particles emitted in %zu layers; largest CPU-GPU difference of a new layer where it enters: "
      "%.3e spacings; of all particles every 100 steps (spacings):",
      emitted, layers_compared, largest_at_birth / spacing);
  for (double d : largest_every_100) std::printf(" %.2e", d);
  std::printf("\n");
  // Where layers enter: rounding only (a misplaced layer would be off by a good part of a spacing).
  EXPECT_LT(largest_at_birth, 1e-3 * spacing);
  // The tolerance of GpuEquivalence.DamBreakHundredStepsMatchesTheCpu (gpu_equivalence_test.cpp) over the
  // same 100 steps, and ten times it after 300 (three layers in). Later the jet splashes into the pool,
  // where two roundings of a splash part (the figures are printed, not bounded).
  ASSERT_EQ(largest_every_100.size(), std::size_t(kSteps / 100));
  EXPECT_LT(largest_every_100[0], 1e-3);
  EXPECT_LT(largest_every_100[2], 1e-2);
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
