#include "app/graphics/offscreen_frames.h"

#include <glad/gl.h>

#include <cstdio>
#include <ostream>

#include "app/graphics/render_defaults.h"
#include "render/png_writer.h"

namespace surge::app {

OffscreenRenderer::OffscreenRenderer(Simulation& simulation, const RenderOptions& options, int cuda_device,
                                     std::ostream& messages)
    : simulation_(simulation),
      context_(cuda_device),
      target_(options.width, options.height),
      feed_(simulation, renderer_.fluid(), cuda_device >= 0 && context_.on_cuda_device(), messages),
      solid_feed_(simulation, renderer_.solids()) {
  const SceneLook look = scene_look(simulation);
  camera_ = render::OrbitCamera::framing(look.domain_min, look.domain_max,
                                         *render::parse_camera_preset(options.camera));
  settings_.color_by = *render::parse_color_by(options.color_by);
  std::tie(settings_.color_min, settings_.color_max) = default_color_range(settings_.color_by, look);
  settings_.particle_radius = look.particle_radius;
  settings_.radius_from_w = look.radius_per_particle;
  settings_.show_boundary = options.show_boundary;
  settings_.show_solids = !options.hide_solids;
  apply_render_look(options.resolved_look(), look, settings_);
  if (options.show_boundary) upload_boundary(simulation, renderer_.boundary(), simulation.ledger());
  if (cuda_device >= 0 && !context_.on_cuda_device()) {
    messages << "note: the EGL context is not on CUDA device " << cuda_device
             << "; particles go through host memory each frame, counted in the transfer ledger\n";
  }
}

void OffscreenRenderer::draw() {
  feed_.update(settings_.color_by);
  solid_feed_.update();
  if (settings_.show_boundary)
    update_moving_boundary(simulation_, renderer_.boundary(), simulation_.ledger());
  target_.bind();
  renderer_.draw(camera_, target_.width(), target_.height(), settings_);
  glFinish();
}

std::string OffscreenRenderer::description() const {
  std::string out = context_.description() + "; particles by " + feed_.path_description();
  // Which of the surface's two paths a benchmark timed (RenderLook::particle_passes).
  if (settings_.look.style == RenderStyle::surface)
    out += "; surface passes over the particles by " +
           std::string(settings_.look.particle_passes == ParticlePasses::compute ? "compute splatting"
                                                                                 : "point sprites");
  return out;
}

RenderedFrames::RenderedFrames(Simulation& simulation, const Scene& scene, const RenderOptions& options,
                               int every, int cuda_device, std::ostream& messages)
    : renderer_(simulation, options, cuda_device, messages),
      frames_dir_(options.frames_dir),
      name_(scene.name),
      every_(every) {
  if (!frames_dir_.empty()) std::filesystem::create_directories(frames_dir_);
  if (!options.video_file.empty())
    video_.emplace(options.video_file, options.width, options.height, options.video_fps);
}

void RenderedFrames::write_if_due(const StepStatus& status) {
  if (every_ <= 0 || status.step % every_ != 0) return;
  const auto start = std::chrono::steady_clock::now();
  renderer_.draw();
  const std::vector<std::uint8_t> image = renderer_.read_image();
  if (!frames_dir_.empty()) {
    char name[64];
    std::snprintf(name, sizeof name, "_%06d.png", frames_);
    render::write_png(frames_dir_ / (name_ + name), renderer_.width(), renderer_.height(), image);
  }
  if (video_) video_->add_frame(image);
  ++frames_;
  seconds_spent_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void RenderedFrames::finish() {
  if (video_) video_->finish();
}

}  // namespace surge::app
