// WcsphSolver's lesson variant on the CPU, where this machine can run it: the split force pass (fluid loop,
// then the wall loop over the compacted list of wall-side particles, then XSPH and the maxima) adds the same
// terms in the same order as the single pass, so the particles agree bit for bit; the GPU runs the same
// template (tests/gpu/gpu_modes_test.cpp compares it with the CPU there).
#include "sim/sph/wcsph_solver.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim/backend/cpu_executor.h"
#include "sim/backend/solver_simulation.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

using CpuWcsph = SolverSimulation<CpuExecutor, WcsphSolver<CpuExecutor>>;

TEST(WcsphSolver, SplitForcePassGivesTheSinglePassBitForBit) {
  // The fountain: walls, a pool and the emitter's jet, so both the wall list and new particles take part.
  const SphSetup setup = build_setup(load_scene(SURGE_SOURCE_DIR "/scenes/fountain.toml"), 6000);
  CpuWcsph single(std::forward_as_tuple(setup, ForcePass::single), std::tuple<>());
  CpuWcsph split(std::forward_as_tuple(setup, ForcePass::split), std::tuple<>());
  EXPECT_NE(split.backend_name().find(", split force pass)"), std::string::npos) << split.backend_name();
  EXPECT_EQ(single.backend_name().find("split"), std::string::npos) << single.backend_name();
  for (int s = 0; s < 200; ++s) {
    single.step();
    split.step();
  }
  const StepStatus status = split.status();
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  EXPECT_EQ(status.step, single.status().step);
  EXPECT_EQ(status.time_s, single.status().time_s);
  ParticleFrame a, b;
  single.download(a);
  split.download(b);
  ASSERT_GT(a.size(), setup.fluid.size()) << "layers entered, so new particles took part";
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.position.data(), b.position.data(), a.size() * sizeof(Vec4f)), 0);
  EXPECT_EQ(std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(Vec4f)), 0);
  EXPECT_EQ(a.id, b.id);
}

}  // namespace
}  // namespace surge
