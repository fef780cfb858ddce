// Frames of a headless run: the renderer in an offscreen EGL context (the NVIDIA EGL device that is
// the simulation's CUDA device, or Mesa's surfaceless platform), written as numbered PNGs and/or piped
// to ffmpeg for an MP4.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <vector>

#include "app/graphics/particle_feed.h"
#include "app/graphics/solid_feed.h"
#include "app/graphics/video_encoder.h"
#include "app/render_options.h"
#include "render/camera.h"
#include "render/headless_gl_context.h"
#include "render/offscreen_target.h"
#include "render/particle_renderer.h"
#include "sim/backend/simulation.h"
#include "sim/scene/scene.h"

namespace surge::app {

// The renderer, its context and target, fed from one simulation.
class OffscreenRenderer {
 public:
  // cuda_device >= 0 when the simulation runs on that CUDA device (interop is then tried).
  OffscreenRenderer(Simulation& simulation, const RenderOptions& options, int cuda_device,
                    std::ostream& messages);
  // Feeds the current particles and draws; waits for the GPU (glFinish) so a caller can time it.
  void draw();
  // The last drawn image, RGBA rows from the top.
  std::vector<std::uint8_t> read_image() const { return target_.read_rgba(); }
  std::string description() const;
  int width() const { return target_.width(); }
  int height() const { return target_.height(); }

 private:
  Simulation& simulation_;
  render::HeadlessGlContext context_;
  render::OffscreenTarget target_;
  render::ParticleRenderer renderer_;
  ParticleFeed feed_;
  SolidFeed solid_feed_;
  render::OrbitCamera camera_;
  render::RenderSettings settings_;
};

// `surge run --render DIR --video FILE`: a frame every K steps.
class RenderedFrames {
 public:
  RenderedFrames(Simulation& simulation, const Scene& scene, const RenderOptions& options, int every,
                 int cuda_device, std::ostream& messages);
  void write_if_due(const StepStatus& status);
  // Closes the video (ffmpeg finishes and the file is renamed into place).
  void finish();
  int frames_written() const { return frames_; }
  double seconds_spent() const { return seconds_spent_; }
  std::string description() const { return renderer_.description(); }

 private:
  OffscreenRenderer renderer_;
  std::filesystem::path frames_dir_;
  std::string name_;
  int every_;
  int frames_ = 0;
  double seconds_spent_ = 0.0;
  std::optional<VideoEncoder> video_;
};

}  // namespace surge::app
