// Simulation and visualisation never cross the bus: with the CUDA backend and a headless EGL context on
// the same GPU, each frame's particles reach the OpenGL buffers device to device (CUDA-GL interop), the
// transfer ledger stays at zero bytes, and the GL buffers hold exactly what the simulation holds.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "app/graphics/live_session.h"
#include "app/graphics/offscreen_frames.h"
#include "app/graphics/particle_feed.h"
#include "app/graphics/render_defaults.h"
#include "app/graphics/solid_feed.h"
#include "render/color_map.h"
#include "render/fluid_surface.h"
#include "render/headless_gl_context.h"
#include "render/offscreen_target.h"
#include "render/particle_renderer.h"
#include "render/png_writer.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"

namespace surge {
namespace {

// Where pictures made by GPU tests go: $OUT when the GPU machine's runner sets it, else the temp dir.
std::filesystem::path picture_directory() {
  const char* out = std::getenv("OUT");
  return out && *out ? std::filesystem::path(out) : std::filesystem::temp_directory_path();
}

// Fraction of pixels that are not the background colour.
double covered_fraction(const std::vector<std::uint8_t>& rgba) {
  const render::Rgb bg = render::kBackgroundColor;
  const int r = int(std::lround(bg.r * 255)), g = int(std::lround(bg.g * 255)),
            b = int(std::lround(bg.b * 255));
  std::size_t covered = 0;
  for (std::size_t k = 0; k < rgba.size(); k += 4) {
    if (std::abs(rgba[k] - r) > 2 || std::abs(rgba[k + 1] - g) > 2 || std::abs(rgba[k + 2] - b) > 2)
      ++covered;
  }
  return double(covered) / double(rgba.size() / 4);
}

TEST(RenderInterop, FramesCrossNoBusAndGlHoldsTheSimulationsParticles) {
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  auto simulation = make_simulation(scene, ExecutionMode::gpu, {.particles_override = 200000});
  const std::size_t n = simulation->fluid_count();
  for (int s = 0; s < 20; ++s) simulation->step();  // particles moving, so speeds are not all zero

  render::HeadlessGlContext context(0);
  std::cout << "context: " << context.description() << '\n';
  ASSERT_TRUE(context.on_cuda_device())
      << "the EGL context is not on CUDA device 0: " << context.description();
  render::ParticleRenderer renderer;
  std::ostringstream messages;
  app::ParticleFeed feed(*simulation, renderer.fluid(), true, messages);
  feed.update(render::ColorBy::speed);  // registers the GL buffers with CUDA (once)
  ASSERT_TRUE(feed.using_interop()) << messages.str();
  EXPECT_EQ(messages.str(), "");

  simulation->status();
  simulation->ledger().clear();
  constexpr int kFrames = 10;
  render::OffscreenTarget target(640, 360);
  const app::SceneLook look = app::scene_look(simulation->parameters());
  const render::OrbitCamera camera =
      render::OrbitCamera::framing(look.domain_min, look.domain_max, render::CameraPreset::perspective);
  render::RenderSettings settings;
  settings.particle_radius = look.particle_radius;
  for (int frame = 0; frame < kFrames; ++frame) {
    simulation->step();
    feed.update(render::ColorBy::speed);
    target.bind();
    renderer.draw(camera, target.width(), target.height(), settings);
  }
  glFinish();
  EXPECT_EQ(simulation->ledger().total_bytes(), 0u)
      << "bytes crossed the bus during " << kFrames << " frames";
  EXPECT_TRUE(feed.using_interop()) << messages.str();

  // What GL holds (read back through GL, not CUDA) against what the simulation downloads.
  ASSERT_EQ(renderer.fluid().count(), n);
  std::vector<Vec4f> gl_position(n);
  std::vector<float> gl_speed(n);
  glGetNamedBufferSubData(renderer.fluid().position_buffer(), 0, GLsizeiptr(n * sizeof(Vec4f)),
                          gl_position.data());
  glGetNamedBufferSubData(renderer.fluid().scalar_buffer(), 0, GLsizeiptr(n * sizeof(float)),
                          gl_speed.data());
  ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  ParticleFrame frame;
  simulation->download(frame);
  ASSERT_EQ(frame.size(), n);
  std::size_t position_mismatches = 0, speed_mismatches = 0;
  double fastest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec4f a = gl_position[i], b = frame.position[i];
    if (a.x != b.x || a.y != b.y || a.z != b.z) ++position_mismatches;
    const double speed = std::sqrt(double(length_squared(xyz(frame.velocity[i]))));
    fastest = std::max(fastest, speed);
    if (std::abs(double(gl_speed[i]) - speed) > 1e-5 * speed + 1e-7) ++speed_mismatches;
  }
  EXPECT_EQ(position_mismatches, 0u) << "GL positions differ from the simulation's (bitwise)";
  EXPECT_EQ(speed_mismatches, 0u) << "GL speeds differ from |v| of the simulation's velocities";
  EXPECT_GT(fastest, 0.01) << "the particles move, so the speed comparison means something";

  const std::vector<std::uint8_t> image = target.read_rgba();
  EXPECT_GT(covered_fraction(image), 0.01) << "the fluid is in the picture";
  render::write_png(picture_directory() / "interop_frame.png", target.width(), target.height(), image);
}

TEST(RenderInterop, OffscreenRenderOfASceneToPng) {
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  auto simulation = make_simulation(scene, ExecutionMode::gpu, {.particles_override = 1000000});
  for (int s = 0; s < 200; ++s) simulation->step();
  app::RenderOptions options;
  options.size = "1920x1080";
  options.validate();
  options.show_boundary = false;
  std::ostringstream messages;
  app::OffscreenRenderer renderer(*simulation, options, 0, messages);
  std::cout << renderer.description() << '\n';
  renderer.draw();
  const auto image = renderer.read_image();
  ASSERT_EQ(image.size(), std::size_t(1920) * 1080 * 4);
  EXPECT_GT(covered_fraction(image), 0.02);
  const auto file = picture_directory() / "dam_break_1M_1920x1080.png";
  render::write_png(file, 1920, 1080, image);
  EXPECT_TRUE(std::filesystem::exists(file));
  EXPECT_EQ(messages.str().find("interop is unavailable"), std::string::npos) << messages.str();
}

// Every solver's GPU backend feeds the viewer through interop: DFSPH, PBF, granular DEM and gravity write
// their particles into the GL buffers on the device, so a frame adds nothing to the ledger, and GL holds
// what a download returns.
TEST(RenderInterop, EverySolversGpuBackendFeedsGlOnTheDevice) {
  struct Case {
    const char* scene;
    const char* solver;  // replaces the scene's, when set
    long particles;
  };
  const Case cases[] = {{"dam_break.toml", "dfsph", 50000},
                        {"dam_break.toml", "pbf", 50000},
                        {"granular_column.toml", nullptr, 0},
                        {"galaxies.toml", nullptr, 20000}};
  render::HeadlessGlContext context(0);
  ASSERT_TRUE(context.on_cuda_device()) << context.description();
  for (const Case& c : cases) {
    Scene scene = load_scene(std::string(SURGE_SOURCE_DIR "/scenes/") + c.scene);
    if (c.solver) scene.solver = *parse_solver_kind(c.solver);
    SCOPED_TRACE(solver_name(scene.solver));
    auto simulation = make_simulation(scene, ExecutionMode::gpu, {.particles_override = c.particles});
    for (int s = 0; s < 5; ++s) simulation->step();
    render::ParticleRenderer renderer;
    std::ostringstream messages;
    app::ParticleFeed feed(*simulation, renderer.fluid(), true, messages);
    simulation->status();
    const std::size_t before = simulation->ledger().total_bytes();
    for (int frame = 0; frame < 3; ++frame) feed.update(render::ColorBy::speed);
    glFinish();
    EXPECT_TRUE(feed.using_interop()) << messages.str();
    EXPECT_EQ(simulation->ledger().total_bytes() - before, 0u) << "bytes crossed the bus feeding GL";

    const std::size_t n = simulation->fluid_count();
    ASSERT_EQ(renderer.fluid().count(), n);
    std::vector<Vec4f> gl_position(n);
    glGetNamedBufferSubData(renderer.fluid().position_buffer(), 0, GLsizeiptr(n * sizeof(Vec4f)),
                            gl_position.data());
    ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    ParticleFrame frame;
    simulation->download(frame);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Vec4f a = gl_position[i], b = frame.position[i];
      if (a.x != b.x || a.y != b.y || a.z != b.z) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0u) << "GL positions differ from the simulation's";
    std::cout << solver_name(scene.solver) << ": " << n << " particles fed through interop, 0 bus bytes\n";
  }
}

// The surface style with its floor shadows (a shadow map drawn from the particles' GL buffers each frame) and
// the glow style of n-body scenes (sized and lit by the mass in position.w) read only what interop wrote: a
// frame costs no bus bytes. The framing's one download (the bodies' extent and mean mass) comes before.
TEST(RenderInterop, ShadowsAndGlowCrossNoBus) {
  struct Case {
    const char* scene;
    long particles;
    RenderStyle style;
  };
  render::HeadlessGlContext context(0);
  ASSERT_TRUE(context.on_cuda_device()) << context.description();
  for (const Case& c : {Case{"dam_break.toml", 200000, RenderStyle::surface},
                        Case{"galaxies.toml", 20000, RenderStyle::glow}}) {
    SCOPED_TRACE(c.scene);
    const Scene scene = load_scene(std::string(SURGE_SOURCE_DIR "/scenes/") + c.scene);
    auto simulation = make_simulation(scene, ExecutionMode::gpu, {.particles_override = c.particles});
    for (int s = 0; s < 5; ++s) simulation->step();
    const app::SceneLook look = app::scene_look(*simulation);
    render::ParticleRenderer renderer;
    std::ostringstream messages;
    app::ParticleFeed feed(*simulation, renderer.fluid(), true, messages);
    feed.update(render::ColorBy::speed);
    ASSERT_TRUE(feed.using_interop()) << messages.str();
    render::RenderSettings settings;
    settings.particle_radius = look.particle_radius;
    std::tie(settings.color_min, settings.color_max) = app::default_color_range(settings.color_by, look);
    RenderLook style = scene.render;
    style.style = c.style;
    app::apply_render_look(style, look, settings);
    const render::OrbitCamera camera =
        render::OrbitCamera::framing(look.domain_min, look.domain_max, render::CameraPreset::perspective);
    render::OffscreenTarget target(1280, 720);
    simulation->status();
    simulation->ledger().clear();
    for (int frame = 0; frame < 5; ++frame) {
      simulation->step();
      feed.update(render::ColorBy::speed);
      target.bind();
      renderer.draw(camera, target.width(), target.height(), settings);
    }
    glFinish();
    EXPECT_EQ(simulation->ledger().total_bytes(), 0u) << "bytes crossed the bus drawing frames";
    const std::vector<std::uint8_t> image = target.read_rgba();
    // The water's pixels in the surface style (its depth pass, read back through GL after the ledger check);
    // the lit pixels on the glow style's black.
    std::size_t shown = 0;
    if (c.style == RenderStyle::surface) {
      for (float depth : renderer.surface()->read_depth(false)) shown += depth > 0;
    } else {
      for (std::size_t k = 0; k < image.size(); k += 4) shown += image[k] + image[k + 1] + image[k + 2] > 60;
    }
    const double share = double(shown) / double(image.size() / 4);
    std::cout << c.scene << " (" << render_style_name(c.style) << "): " << simulation->fluid_count()
              << " particles, 5 frames, 0 bus bytes; " << 100 * share << " % of the picture shows them\n";
    EXPECT_GT(share, 0.01) << "an empty frame";
    render::write_png(
        picture_directory() / (std::string("interop_") + std::string(render_style_name(c.style)) + ".png"),
        target.width(), target.height(), image);
  }
}

// A scene whose solid moves (the paddle mixer's rotating paddle), as the viewer runs it on the GPU: the
// particles still reach GL through interop with no bus bytes; the only per-frame bytes are the paddle's
// pose, sizeof(BodyPose) = 28 bytes a body, in the ledger under its name; and GL draws the paddle at the pose
// the simulation holds.
TEST(RenderInterop, MovingSolidsCostOnlyTheirPosesPerFrame) {
  // The paddle mixer with a flat box for its blade: the GPU machine's build has no mesh import (assimp), and
  // what is measured here is the pose of a turning body, whatever its shape.
  std::ifstream file_in(SURGE_SOURCE_DIR "/scenes/paddle_mixer.toml");
  std::string text((std::istreambuf_iterator<char>(file_in)), std::istreambuf_iterator<char>());
  const std::string mesh_blade =
      "shape = \"mesh\"\nfile = \"../assets/meshes/paddle.obj\"\ncenter = [0.25, 0.25, 0.08]\n";
  const std::size_t blade = text.find(mesh_blade);
  ASSERT_NE(blade, std::string::npos) << "scenes/paddle_mixer.toml no longer has its mesh paddle";
  text.replace(blade, mesh_blade.size(),
               "shape = \"box\"\nmin = [0.13, 0.235, 0.02]\nmax = [0.37, 0.265, 0.14]\n");
  const Scene scene = parse_scene(text, SURGE_SOURCE_DIR "/scenes/paddle_mixer.toml");
  render::HeadlessGlContext context(0);
  ASSERT_TRUE(context.on_cuda_device()) << context.description();
  render::ParticleRenderer renderer;
  std::ostringstream messages;
  app::LiveSession session(scene, "gpu", ExecutionMode::gpu, 0, renderer, false, messages);
  Simulation& simulation = session.simulation();
  const std::size_t bodies = simulation.solid_surfaces().size();
  ASSERT_EQ(bodies, 1u) << "the paddle";
  session.frame(1, true, render::ColorBy::speed);  // registers the GL buffers with CUDA (once)
  ASSERT_TRUE(session.feed().using_interop()) << messages.str();

  // Each frame drawn in the surface style, shadows on: the paddle's shadow is drawn from its model matrix,
  // set from the pose already read, so drawing it adds no bus bytes.
  render::OffscreenTarget target(960, 540);
  const app::SceneLook look = session.look();
  render::RenderSettings settings;
  settings.particle_radius = look.particle_radius;
  RenderLook surface;
  surface.style = RenderStyle::surface;
  app::apply_render_look(surface, look, settings);
  ASSERT_TRUE(settings.look.shadows && settings.show_floor && settings.has_box);
  const render::OrbitCamera camera =
      render::OrbitCamera::framing(look.domain_min, look.domain_max, render::CameraPreset::perspective);

  simulation.ledger().clear();
  constexpr int kFrames = 10, kStepsPerFrame = 5;
  std::size_t step_bytes = 0, feed_bytes = 0;
  for (int frame = 0; frame < kFrames; ++frame) {
    const app::FrameFigures figures = session.frame(kStepsPerFrame, false, render::ColorBy::speed);
    step_bytes += figures.step_bytes;
    feed_bytes += figures.feed_bytes;
    target.bind();
    renderer.draw(camera, target.width(), target.height(), settings);
  }
  glFinish();
  std::cout << "paddle mixer on the GPU: " << step_bytes << " bus bytes stepping, " << feed_bytes / kFrames
            << " bus bytes per frame to GL\n";
  EXPECT_EQ(step_bytes, 0u);
  EXPECT_EQ(feed_bytes, std::size_t(kFrames) * bodies * sizeof(BodyPose)) << "only the poses cross the bus";
  const auto entries = simulation.ledger().entries();
  ASSERT_EQ(entries.size(), 1u) << "nothing but the poses in the ledger";
  const auto poses_entry = entries.find({CopyDirection::device_to_host, kSolidPosesTransfer});
  ASSERT_NE(poses_entry, entries.end());
  EXPECT_EQ(poses_entry->second.copies, std::size_t(kFrames));

  // GL places the paddle where the simulation has it.
  std::vector<BodyPose> poses;
  ASSERT_TRUE(simulation.download_solid_poses(poses));
  const render::Mat4 expected = app::model_matrix(poses[0]);
  const render::Mat4& drawn = renderer.solids().model(0);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(drawn.m[std::size_t(k)], expected.m[std::size_t(k)]) << k;
  // 51 steps are about 5 ms of the paddle's 0.5 s ramp: it has only started to turn (on the H200 the
  // quaternion's z read 6.6e-5).
  EXPECT_GT(std::abs(poses[0].orientation.z), 1e-5f) << "the paddle has started to turn";

  // A picture of the paddle in the water, its shadow on the floor: the last frame drawn.
  const auto file = picture_directory() / "paddle_mixer_gpu_surface.png";
  render::write_png(file, target.width(), target.height(), target.read_rgba());
  EXPECT_TRUE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace surge
