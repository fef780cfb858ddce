// Execution modes as the engine sees them: names, the factory, and the live mode switch the viewer's
// Lessons panel uses (download the particles, continue them in another mode).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "sim/backend/gpu_info.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

TEST(ExecutionMode, NamesRoundTrip) {
  for (ExecutionMode mode : kExecutionModes) EXPECT_EQ(parse_mode(mode_name(mode)), mode);
  EXPECT_EQ(parse_mode("hybrid-overlap"), ExecutionMode::hybrid_overlap);
  EXPECT_FALSE(parse_mode("hybrid_overlap").has_value());
  EXPECT_FALSE(mode_needs_gpu(ExecutionMode::cpu));
  EXPECT_TRUE(mode_needs_gpu(ExecutionMode::hybrid));
}

TEST(ExecutionMode, GpuModesWithoutAGpuSayWhy) {
  if (query_gpu()) GTEST_SKIP() << "this machine has a GPU; tests/gpu/ covers these modes";
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  for (ExecutionMode mode : {ExecutionMode::hybrid, ExecutionMode::hybrid_overlap, ExecutionMode::gpu}) {
    try {
      make_simulation(scene, mode, SimulationOptions{.particles_override = 500});
      ADD_FAILURE() << mode_name(mode) << " made a simulation without a GPU";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
    }
  }
}

// Positions by creation id.
std::vector<Vec4f> by_id(const ParticleFrame& frame) {
  std::vector<Vec4f> out(frame.size());
  for (std::size_t k = 0; k < frame.size(); ++k) out[frame.id[k]] = frame.position[k];
  return out;
}

TEST(ExecutionMode, SwitchingModeContinuesTheSameRun) {
  // cpu -> cpu through the switch must be exactly the uninterrupted run: the hook loses nothing
  // (positions, velocities, ids, time, step). tests/gpu/ switches between the GPU modes the same way.
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  const SphSetup setup = build_setup(scene, 3000);
  auto straight = make_wcsph_simulation(setup, ExecutionMode::cpu);
  auto first = make_wcsph_simulation(setup, ExecutionMode::cpu);
  for (int s = 0; s < 40; ++s) straight->step();
  for (int s = 0; s < 20; ++s) first->step();
  auto second = switch_execution_mode(*first, setup, ExecutionMode::cpu);
  EXPECT_EQ(second->status().step, 20);
  EXPECT_DOUBLE_EQ(second->status().time_s, first->status().time_s);
  for (int s = 0; s < 20; ++s) second->step();

  const StepStatus a = straight->status(), b = second->status();
  EXPECT_EQ(b.step, 40);
  EXPECT_DOUBLE_EQ(b.time_s, a.time_s);
  ParticleFrame fa, fb;
  straight->download(fa);
  second->download(fb);
  const auto pa = by_id(fa), pb = by_id(fb);
  ASSERT_EQ(pa.size(), pb.size());
  double travelled = 0;
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(pa[i].x, pb[i].x);
    EXPECT_EQ(pa[i].y, pb[i].y);
    EXPECT_EQ(pa[i].z, pb[i].z);
    travelled =
        std::max(travelled, double(std::sqrt(length_squared(xyz(pa[i]) - xyz(setup.fluid.position[i])))));
  }
  EXPECT_GT(travelled, 1e-5) << "the particles moved, so equality means something";
}

}  // namespace
}  // namespace surge
