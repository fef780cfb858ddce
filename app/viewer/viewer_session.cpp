// [Session] of the viewer (viewer.h): the running simulation, started from the command line, restarted with
// another scene or particle count, or switched live to another execution mode; and what derives from it
// (camera framing, colour range, the stirring hand's size).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <system_error>

#include "app/graphics/particle_feed.h"
#include "app/graphics/render_defaults.h"
#include "app/viewer/viewer.h"

namespace surge::app {
namespace {

// The scene combo's choices: the scene files in the directory of the one started.
std::vector<std::filesystem::path> scenes_beside(const std::filesystem::path& scene) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  const auto dir = scene.has_parent_path() ? scene.parent_path() : std::filesystem::path(".");
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

render::RenderSettings first_settings(const RenderOptions& look) {
  render::RenderSettings settings;
  settings.color_by = *render::parse_color_by(look.color_by);
  settings.show_boundary = look.show_boundary;
  settings.show_solids = !look.hide_solids;
  return settings;
}

}  // namespace

Viewer::Viewer(const ViewOptions& options)
    : options_(options),
      window_(options.look.width, options.look.height, options.frames <= 0),
      settings_(first_settings(options.look)),
      scene_(load_scene(options.scene_path)),
      particles_now_(options.particles),
      first_mode_(options.mode.empty() ? std::nullopt : parse_mode(options.mode)),
      session_(std::make_unique<LiveSession>(scene_, options.backend, first_mode_, options.particles,
                                             renderer_, settings_.show_boundary, std::cout)),
      first_preset_(*render::parse_camera_preset(options.look.camera)),
      camera_(framing(first_preset_)),
      scene_files_(scenes_beside(options.scene_path)),
      particles_edit_(int(session_->simulation().fluid_count())) {
  reset_colors();
  apply_scene_look();
  apply_live_edits();
  hand_radius_ = default_hand_radius();
  if (options.fullscreen) window_.toggle_fullscreen();
}

// --set NAME=VALUE, as the panel would apply it before the first step; a refused one ends the viewer with
// kExitBadInput before any frame.
void Viewer::apply_live_edits() {
  for (const auto& [name, value] : options_.live_edits) {
    if (std::string refused = live_.set(session_->simulation(), name, value); !refused.empty()) {
      std::cerr << "surge view: --set " << name << ": " << refused << '\n';
      exit_code_ = kExitBadInput;
      window_.close();
    } else {
      std::cout << "live: " << name << " set before the first step\n";
    }
  }
}

void Viewer::restart(const Scene& next, long particles) {
  particles_now_ = particles;
  capture_.abandon_recording();
  // A restart keeps the mode, except a hybrid one for a solver that has none (then the gpu mode).
  ExecutionMode mode = session_->mode();
  if (!why_solver_lacks_mode(next.solver, mode).empty()) mode = ExecutionMode::gpu;
  session_.reset();  // the old simulation's GPU memory goes before the new one is allocated
  session_ = std::make_unique<LiveSession>(next, options_.backend, mode, particles, renderer_,
                                           settings_.show_boundary, std::cout);
  scene_ = next;
  particles_edit_ = int(session_->simulation().fluid_count());
  if (std::string refused = live_.reapply(session_->simulation()); !refused.empty()) last_message_ = refused;
  reset_colors();
  stats_.forget_ledger();
  hand_radius_ = default_hand_radius();
  stirring_ = false;
}

// The Lessons panel's live switch: the same particles, time and step, continued in `next`.
void Viewer::switch_mode(ExecutionMode next) {
  last_message_ = session_->switch_mode(next, renderer_, std::cout);
  stats_.forget_ledger();
  stirring_ = false;
  if (const std::string refused = live_.reapply(session_->simulation()); !refused.empty())
    last_message_ += "; " + refused;
  std::cout << last_message_ << '\n';
}

void Viewer::toggle_emitter() {
  Simulation& simulation = session_->simulation();
  if (!simulation.has_emitter()) {
    last_message_ = "this scene has no [[emitter]] (docs/scenes.md)";
    return;
  }
  simulation.set_emitter_enabled(!simulation.emitter_enabled());
  last_message_ = simulation.emitter_enabled() ? "emitter on" : "emitter off";
}

// The walls go to GL when first shown: they never move.
void Viewer::upload_walls_once() {
  if (renderer_.boundary().count() == 0) {
    Simulation& simulation = session_->simulation();
    upload_boundary(simulation, renderer_.boundary(), simulation.ledger());
  }
}

render::OrbitCamera Viewer::framing(render::CameraPreset preset) const {
  return render::OrbitCamera::framing(session_->look().domain_min, session_->look().domain_max, preset);
}

void Viewer::apply_scene_look() {
  RenderOptions look = options_.look;
  look.scene_look = scene_.render;
  apply_render_look(look.resolved_look(), session_->look(), settings_);
}

void Viewer::reset_colors() {
  // The surface style's tank and floor follow the running scene's domain; its parameters stay as set.
  apply_render_look(settings_.look, session_->look(), settings_);
  settings_.particle_radius = session_->look().particle_radius;
  settings_.radius_from_w = session_->look().radius_per_particle;
  std::tie(settings_.color_min, settings_.color_max) =
      default_color_range(settings_.color_by, session_->look());
}

float Viewer::default_hand_radius() const {
  return 0.1f * std::sqrt(length_squared(session_->look().domain_max - session_->look().domain_min));
}

}  // namespace surge::app
