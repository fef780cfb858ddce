// The viewer's Lessons panel on a GPU: `surge view` switches the running dam break between the four
// execution modes through app::LiveSession, which owns the simulation and its feed into GL. This runs the
// same sequence in a headless EGL context on the CUDA device (no window: the GPU machine has no display),
// with the panel's measurements (app::ModeComparison), and checks what the panel shows and what GL holds.
#include "app/graphics/live_session.h"

#include <glad/gl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/mode_comparison.h"
#include "render/headless_gl_context.h"
#include "render/particle_renderer.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"
#include "tests/gpu/particle_comparison.h"

namespace surge {
namespace {

TEST(LiveSession, LessonsPanelSwitchesThroughEveryModeWithTheSameParticles) {
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  constexpr long kParticles = 100000;
  constexpr int kStepsPerFrame = 2, kFramesPerMode = 5;

  render::HeadlessGlContext context(0);
  std::cout << "context: " << context.description() << '\n';
  ASSERT_TRUE(context.on_cuda_device()) << context.description();
  render::ParticleRenderer renderer;
  std::ostringstream messages;
  app::LiveSession session(scene, "cpu", ExecutionMode::cpu, kParticles, renderer, false, messages);
  app::ModeComparison comparison;
  const std::size_t n = session.simulation().fluid_count();

  // The viewer's sequence: start on the CPU, then gpu, hybrid-overlap, hybrid and back to cpu, each mode for
  // a few frames, as a student clicking through the panel would.
  const std::vector<ExecutionMode> sequence = {ExecutionMode::cpu, ExecutionMode::gpu,
                                               ExecutionMode::hybrid_overlap, ExecutionMode::hybrid,
                                               ExecutionMode::cpu};
  long steps_done = 0;
  for (std::size_t k = 0; k < sequence.size(); ++k) {
    const ExecutionMode mode = sequence[k];
    if (k > 0) {
      const std::string line = session.switch_mode(mode, renderer, messages);
      std::cout << line << '\n';
      EXPECT_EQ(line.rfind(std::string("mode ") + mode_name(sequence[k - 1]) + " -> " + mode_name(mode) +
                               " at step " + std::to_string(steps_done) + ",",
                           0),
                0u)
          << line;
    }
    ASSERT_EQ(session.mode(), mode);
    ASSERT_EQ(session.status().step, steps_done) << "the switch continues at the same step";
    ASSERT_EQ(session.simulation().fluid_count(), n);
    std::size_t step_bytes = 0, feed_bytes = 0;
    for (int f = 0; f < kFramesPerMode; ++f) {
      const app::FrameFigures figures = session.frame(kStepsPerFrame, false, render::ColorBy::speed);
      comparison.record(mode, figures.stages, figures.step_bytes);
      step_bytes += figures.step_bytes;
      feed_bytes += figures.feed_bytes;
      steps_done += kStepsPerFrame;
      EXPECT_EQ(figures.stages.steps, kStepsPerFrame);
    }
    // Interop (registered at the feed's first update) only for the GPU-resident mode: the hybrids'
    // particles reach GL through the host (the feed says so, and the ledger counts it).
    EXPECT_EQ(session.feed().using_interop(), mode == ExecutionMode::gpu) << messages.str();
    std::cout << mode_name(mode) << ": " << step_bytes / (kFramesPerMode * kStepsPerFrame)
              << " bus bytes per step, " << feed_bytes / kFramesPerMode << " bus bytes per frame to GL, "
              << comparison.measured(mode)->total_ms_per_step() << " ms/step\n";
    switch (mode) {
      case ExecutionMode::cpu:
        EXPECT_EQ(step_bytes, 0u);
        EXPECT_GT(feed_bytes, 0u) << "the CPU's particles are uploaded to GL, and the ledger says so";
        break;
      case ExecutionMode::gpu:
        EXPECT_EQ(step_bytes + feed_bytes, 0u) << "simulation and visualisation never cross the bus";
        break;
      case ExecutionMode::hybrid:
      case ExecutionMode::hybrid_overlap:
        EXPECT_GT(step_bytes, 0u) << "the index crosses the bus in a hybrid mode";
        break;
    }
    // What the panel shows: this mode measured, with bus bytes per step as the ledger counted them.
    ASSERT_TRUE(comparison.measured(mode).has_value());
    EXPECT_GT(comparison.measured(mode)->total_ms_per_step(), 0.0);
  }
  EXPECT_TRUE(comparison.speedup_over_cpu(ExecutionMode::gpu).has_value());
  EXPECT_EQ(session.simulation().status().step, steps_done);

  // The same physics: the switched run against one that stayed on the CPU for as many steps.
  const SphSetup setup = build_setup(scene, kParticles);
  auto reference = make_wcsph_simulation(setup, ExecutionMode::cpu);
  for (long s = 0; s < steps_done; ++s) reference->step();
  const double difference =
      largest_difference(positions_by_id(*reference), positions_by_id(session.simulation()));
  std::cout << "largest difference from a cpu-only run after " << steps_done << " steps: " << difference
            << " m (spacing " << setup.params.spacing << " m)\n";
  EXPECT_LT(difference, 1e-3 * setup.params.spacing);

  // Back on the CPU the feed uploaded the particles: GL holds exactly what the simulation downloads.
  std::vector<Vec4f> gl_position(n);
  glGetNamedBufferSubData(renderer.fluid().position_buffer(), 0, GLsizeiptr(n * sizeof(Vec4f)),
                          gl_position.data());
  ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  ParticleFrame frame;
  session.simulation().download(frame);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec4f a = gl_position[i], b = frame.position[i];
    if (a.x != b.x || a.y != b.y || a.z != b.z) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0u);
}

// The session started in cpu; five frames of two steps each in cpu, then gpu, then cpu again: every switch
// continues at the step reached, and only the gpu mode feeds GL through interop, with zero bytes.
long run_cpu_gpu_cpu(app::LiveSession& session, render::ParticleRenderer& renderer,
                     std::ostream& messages_out) {
  std::ostringstream messages;
  long steps_done = 0;
  for (ExecutionMode mode : {ExecutionMode::cpu, ExecutionMode::gpu, ExecutionMode::cpu}) {
    if (steps_done > 0) {
      messages_out << session.switch_mode(mode, renderer, messages) << '\n';
      EXPECT_EQ(session.status().step, steps_done);
    }
    std::size_t feed_bytes = 0;
    for (int f = 0; f < 5; ++f) {
      feed_bytes += session.frame(2, false, render::ColorBy::speed).feed_bytes;
      steps_done += 2;
    }
    EXPECT_EQ(session.feed().using_interop(), mode == ExecutionMode::gpu) << messages.str();
    if (mode == ExecutionMode::gpu) {
      EXPECT_EQ(feed_bytes, 0u);
    }
  }
  return steps_done;
}

// PBF through the same session: cpu -> gpu -> cpu. On the GPU its frames reach GL through interop (zero
// feed bytes); the run continues at the same step and stays with a CPU-only run within the CPU/GPU
// agreement the incompressible GPU tests hold (tests/gpu/gpu_incompressible_test.cpp).
TEST(LiveSession, PbfSwitchesBetweenCpuAndGpu) {
  Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  scene.solver = SolverKind::pbf;
  constexpr long kParticles = 50000;
  render::HeadlessGlContext context(0);
  ASSERT_TRUE(context.on_cuda_device()) << context.description();
  render::ParticleRenderer renderer;
  std::ostringstream messages;
  app::LiveSession session(scene, "cpu", ExecutionMode::cpu, kParticles, renderer, false, messages);
  const long steps_done = run_cpu_gpu_cpu(session, renderer, std::cout);
  const SphSetup setup = build_setup(scene, kParticles);
  auto reference = make_simulation(scene, ExecutionMode::cpu, {.particles_override = kParticles});
  for (long s = 0; s < steps_done; ++s) reference->step();
  const double difference =
      largest_difference(positions_by_id(*reference), positions_by_id(session.simulation()));
  std::cout << "pbf: largest difference from a cpu-only run after " << steps_done << " steps: " << difference
            << " m (spacing " << setup.params.spacing << " m)\n";
  EXPECT_LT(difference, 2e-2 * setup.params.spacing);
}

// Grains and bodies through the same session: cpu -> gpu -> cpu, interop on the GPU, the same step
// count throughout, and positions close to a run that stayed on the CPU (grains: the DEM GPU tests' 1e-2
// radius; bodies: float against double, 1e-4 of the system's extent).
TEST(LiveSession, GrainsAndBodiesSwitchBetweenCpuAndGpu) {
  struct Case {
    const char* scene;
    long particles;
  };
  render::HeadlessGlContext context(0);
  ASSERT_TRUE(context.on_cuda_device()) << context.description();
  for (const Case& c : {Case{"hourglass.toml", 0}, Case{"galaxies.toml", 20000}}) {
    const Scene scene = load_scene(std::string(SURGE_SOURCE_DIR "/scenes/") + c.scene);
    SCOPED_TRACE(c.scene);
    render::ParticleRenderer renderer;
    std::ostringstream messages;
    app::LiveSession session(scene, "cpu", ExecutionMode::cpu, c.particles, renderer, false, messages);
    const long steps_done = run_cpu_gpu_cpu(session, renderer, std::cout);
    auto reference = make_simulation(scene, ExecutionMode::cpu, {.particles_override = c.particles});
    for (long s = 0; s < steps_done; ++s) reference->step();
    const auto a = positions_by_id(*reference), b = positions_by_id(session.simulation());
    Vec3f low = xyz(a[0]), high = xyz(a[0]);
    float radius = 0;
    for (const Vec4f& x : a) {
      low = {std::min(low.x, x.x), std::min(low.y, x.y), std::min(low.z, x.z)};
      high = {std::max(high.x, x.x), std::max(high.y, x.y), std::max(high.z, x.z)};
      radius = std::max(radius, x.w);
    }
    const double difference = largest_difference(a, b);
    const double extent = std::sqrt(double(length_squared(high - low)));
    std::cout << c.scene << ": largest difference from a cpu-only run after " << steps_done
              << " steps: " << difference << " (extent " << extent << ", largest w " << radius << ")\n";
    if (scene.solver == SolverKind::dem)
      EXPECT_LT(difference, 1e-2 * radius);
    else
      EXPECT_LT(difference, 1e-4 * extent);
  }
}

}  // namespace
}  // namespace surge
