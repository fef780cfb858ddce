// [Panels] of the viewer (viewer.h): one ImGui window with the statistics (stats_panel.h) and the sections
// Run, Scene (with the live parameters), Timings, Lessons and View; and the help overlay.
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <exception>

#include "app/viewer/viewer.h"

namespace surge::app {
namespace {

constexpr const char* kHelpText =
    "Mouse: left drag orbit, right or middle drag pan, wheel zoom\n"
    "Shift or Ctrl + left drag: stir the fluid (a hand that drags it along)\n"
    "Space        pause / run\n"
    "N            one step (while paused)\n"
    "Backspace    restart the scene\n"
    "+ / -        more / fewer steps per frame (time scale)\n"
    "1 2 3 4      camera: perspective, front, side, top\n"
    "C            reset the camera\n"
    "B            show / hide wall particles\n"
    "E            emitter on / off (scenes with an [[emitter]])\n"
    "P            screenshot (PNG in the working directory)\n"
    "R            start / stop recording\n"
    "F11          fullscreen\n"
    "Tab          show / hide the panels\n"
    "H or F1      this help\n"
    "Esc          quit";

}  // namespace

void Viewer::draw_panels(Requests& requests, int height) {
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(420, 0), ImGuiCond_FirstUseEver);
  // No taller than the window (a 720-pixel window cut the panel off): past that it scrolls.
  ImGui::SetNextWindowSizeConstraints(ImVec2(200, 100),
                                      ImVec2(FLT_MAX, std::max(100.0f, float(height) - 20)));
  ImGui::Begin("Surge");
  // Tab is the viewer's show/hide-panels key; as ImGui's tab stop it would move into the first field
  // and take every following key.
  ImGui::PushAllowKeyboardFocus(false);
  // Fields leave 12 em for their labels: the live parameters are named as the scene file names them
  // ("speed_of_sound_m_per_s"), which ImGui's default two-thirds width would cut.
  ImGui::PushItemWidth(-12.0f * ImGui::GetFontSize());
  stats_.draw_status(*session_);
  draw_run_section(requests);
  draw_scene_section();
  stats_.draw_timings();
  if (ImGui::CollapsingHeader("Lessons", first_mode_ ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
    if (const auto picked = lessons_.draw(session_->mode(), scene_.solver)) requests.switch_to = picked;
  }
  draw_view_section();
  if (!last_message_.empty()) ImGui::TextWrapped("%s", last_message_.c_str());
  ImGui::PopItemWidth();
  ImGui::PopAllowKeyboardFocus();
  ImGui::End();
}

void Viewer::draw_run_section(Requests& requests) {
  if (!ImGui::CollapsingHeader("Run", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (ImGui::Button(paused_ ? "Run" : "Pause")) paused_ = !paused_;
  ImGui::SameLine();
  if (ImGui::Button("Step")) paused_ = true, single_step_ = true;
  ImGui::SameLine();
  if (ImGui::Button("Restart")) requests.restart = true;
  ImGui::SliderInt("steps/frame", &steps_per_frame_, 1, 64);
  ImGui::DragFloat("hand radius", &hand_radius_, 0.001f, 0.001f, 10.0f, "%.3f m");
  // A scene without [[emitter]] has no nozzle to switch: greyed, with the reason.
  const Simulation& simulation = session_->simulation();
  bool emitting = simulation.emitter_enabled();
  ImGui::BeginDisabled(!simulation.has_emitter());
  if (ImGui::Checkbox("Emitter (E)", &emitting)) toggle_emitter();
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (!simulation.has_emitter())
    ImGui::TextDisabled("this scene has no [[emitter]]");
  else if (session_->status().emitter_full)
    ImGui::TextDisabled("full: %zu of %zu particles", simulation.fluid_count(), simulation.capacity());
  else
    ImGui::TextDisabled("%zu of %zu particles", simulation.fluid_count(), simulation.capacity());
  ImGui::TextDisabled("Shift + drag: stir the fluid");
  if (ImGui::Button("Screenshot")) requests.screenshot = true;
  ImGui::SameLine();
  if (ImGui::Button(capture_.recording() ? "Stop recording" : "Record")) requests.toggle_recording = true;
  if (capture_.recording()) ImGui::Text("recording: %d frames", capture_.recorded_frames());
}

void Viewer::draw_scene_section() {
  if (!ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const std::string current = scene_.path.filename().string();
  if (ImGui::BeginCombo("scene", current.c_str())) {
    for (const auto& file : scene_files_) {
      if (ImGui::Selectable(file.filename().string().c_str(), file.filename() == scene_.path.filename())) {
        try {
          live_.forget();
          restart(load_scene(file), 0);
          apply_scene_look();
          camera_ = framing(first_preset_);
        } catch (const std::exception& e) {
          last_message_ = e.what();
        }
      }
    }
    ImGui::EndCombo();
  }
  ImGui::DragInt("particles", &particles_edit_, 1000.0f, 1000, 50'000'000);
  ImGui::SameLine();
  ImGui::TextDisabled("(on restart)");
  if (ImGui::Button("Restart to apply")) {
    try {
      restart(scene_, particles_edit_);
    } catch (const std::exception& e) {
      last_message_ = e.what();
    }
  }
  // Through the session: a scene picked above has replaced the simulation this frame began with.
  if (std::string refused = live_.draw(session_->simulation()); !refused.empty()) last_message_ = refused;
}

void Viewer::draw_view_section() {
  if (!ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) return;
  int color_by = int(settings_.color_by);
  const char* names[] = {"speed", "density", "pressure", "fixed"};
  if (ImGui::Combo("colour by", &color_by, names, 4)) {
    settings_.color_by = render::ColorBy(color_by);
    reset_colors();
  }
  ImGui::DragFloatRange2("range", &settings_.color_min, &settings_.color_max,
                         0.01f * std::max(1.0f, std::abs(settings_.color_max)));
  ImGui::DragFloat("radius", &settings_.particle_radius, 1e-4f, 1e-5f, 1.0f, "%.4f m");
  draw_surface_controls();
  ImGui::Checkbox("lighting", &settings_.lighting);
  ImGui::SameLine();
  ImGui::Checkbox("colour bar", &settings_.show_color_bar);
  if (ImGui::Checkbox("walls", &settings_.show_boundary) && settings_.show_boundary) upload_walls_once();
  ImGui::SameLine();
  ImGui::Checkbox("solids", &settings_.show_solids);
  for (int k = 0; k < 4; ++k) {
    if (k > 0) ImGui::SameLine();
    if (ImGui::Button(render::kCameraPresetNames[std::size_t(k)].c_str())) {
      camera_ = framing(render::CameraPreset(k));
    }
  }
  if (ImGui::Button("Fullscreen (F11)")) window_.toggle_fullscreen();
  ImGui::SameLine();
  if (ImGui::Button("Help (H)")) show_help_ = !show_help_;
}

// The style, and the surface style's parameters: the scene's [render] keys (docs/scenes.md), same ranges.
void Viewer::draw_surface_controls() {
  int style = int(settings_.look.style);
  const char* styles[] = {"spheres", "surface", "glow"};
  // A liquid surface only makes sense for the SPH solvers' fluid: the choice is kept for them.
  if (ImGui::Combo("style", &style, styles, 3) &&
      (RenderStyle(style) != RenderStyle::surface || is_fluid_solver(scene_.solver)))
    settings_.look.style = RenderStyle(style);
  if (settings_.look.style != RenderStyle::surface) return;
  RenderLook& look = settings_.look;
  int filter = int(look.filter);
  const char* filters[] = {"bilateral", "narrow range"};
  if (ImGui::Combo("depth filter", &filter, filters, 2)) look.filter = DepthFilter(filter);
  int passes = int(look.particle_passes);
  const char* pass_kinds[] = {"compute", "sprites"};
  if (ImGui::Combo("particle passes", &passes, pass_kinds, 2)) look.particle_passes = ParticlePasses(passes);
  ImGui::SliderFloat("smoothing", &look.filter_radius, 0.0f, 10.0f, "%.1f radii");
  ImGui::ColorEdit3("water colour", &look.color.x);
  ImGui::SliderFloat("absorption", &look.absorption, 0.0f, 50.0f, "%.2f 1/m", ImGuiSliderFlags_Logarithmic);
  ImGui::SliderFloat("refraction", &look.refraction, 0.0f, 2.0f, "%.2f");
  ImGui::Checkbox("spray", &look.spray);
  ImGui::SameLine();
  ImGui::Checkbox("floor", &settings_.show_floor);
  ImGui::SameLine();
  ImGui::Checkbox("glass tank", &settings_.show_tank);
  ImGui::SameLine();
  ImGui::Checkbox("shadows", &look.shadows);
}

void Viewer::draw_help(int width, int height) {
  ImGui::SetNextWindowPos(ImVec2(float(width) * 0.5f, float(height) * 0.5f), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
  ImGui::Begin("Help", &show_help_, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
  ImGui::TextUnformatted(kHelpText);
  ImGui::End();
}

}  // namespace surge::app
