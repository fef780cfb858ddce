// The particle feed of a simulation whose particles are on the host: asked for CUDA-GL interop as the GPU
// backend would ask, it uploads from the host instead and the ledger counts every byte. Where interop cannot
// be set up (no GPU, Mesa's GL, a build without CUDA) it says so once; where it can (an NVIDIA GPU with its
// own GL), a CPU simulation has nothing to map into it and the feed drops it without a word.
#include "app/graphics/particle_feed.h"

#include <glad/gl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "render/cuda_gl_buffers.h"
#include "render/headless_gl_context.h"
#include "render/particle_renderer.h"
#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

Scene small_block() {
  Scene scene;
  scene.name = "block";
  scene.domain_min = {0.0f, 0.0f, 0.0f};
  scene.domain_max = {0.1f, 0.1f, 0.1f};
  scene.walls = {true, true, true, true, true, false};
  scene.spacing = 0.01f;
  FluidBlock water;
  water.min = {0.0f, 0.0f, 0.0f};
  water.max = {0.05f, 0.05f, 0.05f};
  scene.blocks = {water};
  return scene;
}

std::size_t count_occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// Whether CUDA-GL interop registers GL buffers in the current context at all.
bool interop_registers() {
  render::ParticleRenderer probe;
  probe.fluid().resize(16);
  try {
    render::CudaGlBuffers registered(probe.fluid());
    return true;
  } catch (const render::CudaGlInteropError&) {
    return false;
  }
}

TEST(ParticleFeed, WithoutInteropSaysSoOnceAndUploadsCountedBytes) {
  render::HeadlessGlContext context;
  render::ParticleRenderer renderer;
  const Scene scene = small_block();
  auto simulation = make_cpu_simulation(build_setup(scene));
  const std::size_t n = simulation->fluid_count();
  ASSERT_GT(n, 100u);
  std::ostringstream messages;
  // Ask for interop as the GPU backend would; with no GPU here it cannot be registered.
  app::ParticleFeed feed(*simulation, renderer.fluid(), true, messages);
  constexpr int kFrames = 3;
  for (int frame = 0; frame < kFrames; ++frame) {
    simulation->step();
    feed.update(render::ColorBy::density);
  }
  EXPECT_FALSE(feed.using_interop());
  std::printf("%s", messages.str().c_str());
  const bool interop_available = interop_registers();
  std::printf("CUDA-GL interop %s in this context\n", interop_available ? "registers" : "does not register");
  EXPECT_EQ(count_occurrences(messages.str(), "CUDA-GL interop is unavailable"), interop_available ? 0u : 1u)
      << messages.str();

  // Each frame: positions (16 bytes) and one colour value (4 bytes) per particle, named as what it is.
  const auto entries = simulation->ledger().entries();
  const auto upload = entries.find({CopyDirection::host_to_device, "particles to OpenGL (host upload)"});
  ASSERT_NE(upload, entries.end());
  EXPECT_EQ(upload->second.copies, std::size_t(kFrames));
  EXPECT_EQ(upload->second.bytes, std::size_t(kFrames) * n * (sizeof(Vec4f) + sizeof(float)));

  // The GL buffers hold the simulation's particles.
  std::vector<Vec4f> gl_position(n);
  std::vector<float> gl_density(n);
  glGetNamedBufferSubData(renderer.fluid().position_buffer(), 0, GLsizeiptr(n * sizeof(Vec4f)),
                          gl_position.data());
  glGetNamedBufferSubData(renderer.fluid().scalar_buffer(), 0, GLsizeiptr(n * sizeof(float)),
                          gl_density.data());
  ParticleFrame frame;
  simulation->download(frame);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(gl_position[i].x, frame.position[i].x) << i;
    ASSERT_EQ(gl_position[i].y, frame.position[i].y) << i;
    ASSERT_EQ(gl_position[i].z, frame.position[i].z) << i;
    ASSERT_EQ(gl_density[i], frame.density[i]) << i;
  }
}

TEST(ParticleFeed, WallParticlesAreUploadedOnceAndCounted) {
  render::HeadlessGlContext context;
  render::ParticleRenderer renderer;
  const Scene scene = small_block();
  const SphSetup setup = build_setup(scene);
  auto simulation =
      make_simulation(scene, ExecutionMode::cpu);  // publishes the walls (Simulation::static_fields)
  TransferLedger ledger;
  app::upload_boundary(*simulation, renderer.boundary(), ledger);
  EXPECT_EQ(renderer.boundary().count(), setup.boundary.size());
  EXPECT_EQ(ledger.total_bytes(), setup.boundary.size() * sizeof(Vec4f));
}

}  // namespace
}  // namespace surge
