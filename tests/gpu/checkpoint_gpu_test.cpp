// Checkpoints on the GPU: every shipped scene under its solver (the fluid scenes also under DFSPH and PBF)
// continues bit for bit from a checkpoint file on the gpu mode, and the dam break on the hybrid mode;
// hybrid-overlap, whose index pipeline a checkpoint does not hold, says it saves none. Runs under the
// `gpu` label (ctest -L gpu); without a GPU the binary exits 77 (Skipped).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "tests/sim/resume_check.h"

namespace surge {
namespace {

std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "surge_checkpoint_gpu_test";
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::unique_ptr<Simulation> make_sized(const Scene& scene, ExecutionMode mode, long particles) {
  return make_simulation(scene, mode, SimulationOptions{.particles_override = particles});
}

TEST(CheckpointGpu, EveryScenesGpuRunResumesBitForBit) {
  EXPECT_GT(
      expect_every_scene_resumes_bit_exact(ExecutionMode::gpu, 20000, 40, 40, scratch("gpu.checkpoint")), 20);
}

TEST(CheckpointGpu, HybridResumesAndHybridOverlapSaysItCannot) {
  const Scene dam = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  expect_resume_bit_exact(
      "dam_break.toml (hybrid)", [&] { return make_sized(dam, ExecutionMode::hybrid, 20000); }, 30, 30,
      scratch("hybrid.checkpoint"));
  auto overlap = make_sized(dam, ExecutionMode::hybrid_overlap, 20000);
  overlap->step();
  SolverState state;
  EXPECT_FALSE(overlap->save_state(state));
  EXPECT_THROW(overlap->load_state(state), StateMismatch);
}

}  // namespace
}  // namespace surge
