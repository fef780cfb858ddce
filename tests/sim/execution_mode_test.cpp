// Execution modes as the engine sees them: names, the factory, and the live mode switch the viewer's
// Lessons panel uses (download the particles, continue them in another mode).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/core/gpu_info.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
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

// DFSPH and PBF switch between cpu and gpu through the scene: here cpu -> cpu, which must continue at the
// same step and time. PBF's state is its particles, so the continued run is the uninterrupted one exactly;
// DFSPH's warm start (last step's pressure values) begins again from zero, so its solves stop at slightly
// different iterates, within their density tolerance: the difference stays far below a spacing.
TEST(ExecutionMode, IncompressibleSolversSwitchThroughTheScene) {
  for (const char* solver : {"pbf", "dfsph"}) {
    Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
    scene.solver = *parse_solver_kind(solver);
    const SimulationOptions options{.particles_override = 3000};
    auto straight = make_simulation(scene, ExecutionMode::cpu, options);
    auto first = make_simulation(scene, ExecutionMode::cpu, options);
    for (int s = 0; s < 30; ++s) straight->step();
    for (int s = 0; s < 15; ++s) first->step();
    auto second = switch_execution_mode(*first, scene, ExecutionMode::cpu, options);
    EXPECT_EQ(second->status().step, 15) << solver;
    EXPECT_DOUBLE_EQ(second->status().time_s, first->status().time_s) << solver;
    for (int s = 0; s < 15; ++s) second->step();
    EXPECT_EQ(second->status().step, 30) << solver;
    ParticleFrame fa, fb;
    straight->download(fa);
    second->download(fb);
    const auto pa = by_id(fa), pb = by_id(fb);
    ASSERT_EQ(pa.size(), pb.size());
    double largest = 0, travelled = 0;
    for (std::size_t i = 0; i < pa.size(); ++i) {
      largest = std::max(largest, double(std::sqrt(length_squared(xyz(pa[i]) - xyz(pb[i])))));
      travelled = std::max(travelled, double(std::sqrt(length_squared(xyz(pa[i]) - xyz(fa.position[0])))));
    }
    const double spacing = build_setup(scene, 3000).params.spacing;
    std::printf("%s: largest difference from the uninterrupted run %.3e m (spacing %.3e m)\n", solver,
                largest, spacing);
    if (std::string(solver) == "pbf")
      EXPECT_EQ(largest, 0.0) << "PBF continues exactly";
    else
      EXPECT_LT(largest, 2e-2 * spacing) << "DFSPH within its solve tolerance";
  }
}

// The table of the factory: every solver the loader accepts has a row, runs in cpu and gpu, and the fluids
// (whose cell index the hybrid executors build on the CPU) in both hybrid modes. n-body has no cell index
// and grains no skin schedule: those are refused with the reason, and a refused switch leaves the run alone.
TEST(ExecutionMode, HybridModesAreRefusedWhereTheyDoNotExist) {
  EXPECT_EQ(solvers_with_modes(),
            (std::vector<SolverKind>{SolverKind::wcsph, SolverKind::dfsph, SolverKind::pbf, SolverKind::dem,
                                     SolverKind::nbody}));
  for (SolverKind solver : solvers_with_modes()) {
    EXPECT_EQ(why_solver_lacks_mode(solver, ExecutionMode::cpu), "") << solver_name(solver);
    EXPECT_EQ(why_solver_lacks_mode(solver, ExecutionMode::gpu), "") << solver_name(solver);
  }
  for (const char* solver : {"wcsph", "dfsph", "pbf"})
    for (ExecutionMode mode : {ExecutionMode::hybrid, ExecutionMode::hybrid_overlap})
      EXPECT_EQ(why_solver_lacks_mode(*parse_solver_kind(solver), mode), "")
          << solver << " " << mode_name(mode);
  EXPECT_EQ(why_solver_lacks_mode(SolverKind::dem, ExecutionMode::hybrid), "");
  EXPECT_NE(why_solver_lacks_mode(SolverKind::dem, ExecutionMode::hybrid_overlap), "");
  EXPECT_NE(why_solver_lacks_mode(SolverKind::nbody, ExecutionMode::hybrid), "");
  EXPECT_NE(why_solver_lacks_mode(SolverKind::nbody, ExecutionMode::hybrid_overlap), "");

  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/kepler.toml");
  auto running = make_simulation(scene, ExecutionMode::cpu);
  try {
    switch_execution_mode(*running, scene, ExecutionMode::hybrid);
    ADD_FAILURE() << "nbody was switched into hybrid";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cell index"), std::string::npos) << e.what();
  }
  EXPECT_EQ(running->status().step, 0) << "the refused switch left the run as it was";
}

// Grains (Mindlin friction, spin, rolling resistance: the hourglass) and bodies (the galaxies) switch through
// the scene too: cpu -> cpu continues at the same step and time, and the grains carry their spin and contact
// history over, so the continued run follows the uninterrupted one to rounding (the neighbour order inside a
// cell may differ after the switch). Bodies cross in float, the GPU's precision: the CPU runs in double, so
// its continued run differs by float rounding of the positions and velocities, not more.
TEST(ExecutionMode, GranularAndGravityRunsSwitchThroughTheScene) {
  struct Case {
    const char* scene;
    long particles;
    int steps;
    double tolerance;  // [m]
  };
  for (const Case& c : {Case{"hourglass.toml", 0, 40, 1e-7}, Case{"galaxies.toml", 2000, 20, 1e-4}}) {
    const Scene scene = load_scene(std::string(SURGE_SOURCE_DIR "/scenes/") + c.scene);
    const SimulationOptions options{.particles_override = c.particles};
    auto straight = make_simulation(scene, ExecutionMode::cpu, options);
    auto first = make_simulation(scene, ExecutionMode::cpu, options);
    for (int s = 0; s < 2 * c.steps; ++s) straight->step();
    for (int s = 0; s < c.steps; ++s) first->step();
    auto second = switch_execution_mode(*first, scene, ExecutionMode::cpu, options);
    EXPECT_EQ(second->status().step, c.steps) << c.scene;
    EXPECT_DOUBLE_EQ(second->status().time_s, first->status().time_s) << c.scene;
    for (int s = 0; s < c.steps; ++s) second->step();
    ParticleFrame fa, fb;
    straight->download(fa);
    second->download(fb);
    const auto pa = by_id(fa), pb = by_id(fb), p0 = by_id(fa);
    ASSERT_EQ(pa.size(), pb.size());
    double largest = 0;
    for (std::size_t i = 0; i < pa.size(); ++i)
      largest = std::max(largest, double(std::sqrt(length_squared(xyz(pa[i]) - xyz(pb[i])))));
    std::printf("%s: largest difference from the uninterrupted run %.3e m after %d + %d steps\n", c.scene,
                largest, c.steps, c.steps);
    EXPECT_LT(largest, c.tolerance) << c.scene;
  }
}

}  // namespace
}  // namespace surge
