// [Input] of the viewer (viewer.h): the mouse moves the camera or, with Shift or Ctrl, stirs the fluid; the
// keyboard shortcuts (the help overlay lists them). Both give way to ImGui when it wants the mouse or keys.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/viewer/viewer.h"

namespace surge::app {

Viewer::Requests Viewer::handle_input(double frame_s, int height) {
  handle_mouse(frame_s, height);
  Requests requests;
  // A scripted switch (--switch-after) comes in as a request of this frame, as the Lessons panel's would.
  if (options_.switch_after_frames > 0 && frame_ == options_.switch_after_frames)
    requests.switch_to = parse_mode(options_.switch_to_mode);
  handle_keys(requests);
  return requests;
}

void Viewer::handle_mouse(double frame_s, int height) {
  const ImGuiIO& io = ImGui::GetIO();
  Simulation& simulation = session_->simulation();
  // Shift or Ctrl + left drag: the stirring hand, on the plane through the camera target, moving as
  // fast as the pointer (at most the scene's largest expected speed).
  const bool stirring_now = !io.WantCaptureMouse && ImGui::IsMouseDown(ImGuiMouseButton_Left) &&
                            (io.KeyShift || io.KeyCtrl) && io.DisplaySize.x > 0 && io.DisplaySize.y > 0;
  if (stirring_now) {
    const float ndc_x = 2.0f * io.MousePos.x / io.DisplaySize.x - 1.0f;
    const float ndc_y = 1.0f - 2.0f * io.MousePos.y / io.DisplaySize.y;
    const Vec3f point = camera_.point_on_target_plane(ndc_x, ndc_y, io.DisplaySize.x / io.DisplaySize.y);
    Stirring hand;
    hand.center = point;
    hand.radius = hand_radius_;
    if (stirring_ && frame_s > 0) {
      hand.velocity = (1.0f / float(frame_s)) * (point - last_hand_point_);
      const float speed = std::sqrt(length_squared(hand.velocity)),
                  limit = session_->look().speed_of_sound / 10.0f;
      if (speed > limit) hand.velocity = (limit / speed) * hand.velocity;
    }
    last_hand_point_ = point;
    stirring_ = true;
    if (!simulation.set_stirring(hand)) last_message_ = "this solver has no stirring hand";
  } else if (stirring_) {
    stirring_ = false;
    simulation.set_stirring(Stirring{});
  }
  if (!io.WantCaptureMouse && !stirring_now) {
    const ImVec2 delta = io.MouseDelta;
    if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) camera_.orbit(-0.3f * delta.x, 0.3f * delta.y);
    if (ImGui::IsMouseDown(ImGuiMouseButton_Right) || ImGui::IsMouseDown(ImGuiMouseButton_Middle)) {
      camera_.pan(-delta.x / float(height), delta.y / float(height));
    }
    if (io.MouseWheel != 0.0f) camera_.zoom(std::pow(0.9f, io.MouseWheel));
  }
}

void Viewer::handle_keys(Requests& requests) {
  if (!ImGui::GetIO().WantCaptureKeyboard) {
    const auto pressed = [&](int key) { return window_.pressed(key); };
    if (pressed(GLFW_KEY_SPACE)) paused_ = !paused_;
    if (pressed(GLFW_KEY_N)) paused_ = true, single_step_ = true;
    if (pressed(GLFW_KEY_BACKSPACE)) requests.restart = true;
    if (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD))
      steps_per_frame_ = std::min(steps_per_frame_ * 2, 64);
    if (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT))
      steps_per_frame_ = std::max(steps_per_frame_ / 2, 1);
    for (int k = 0; k < 4; ++k) {
      if (pressed(GLFW_KEY_1 + k)) camera_ = framing(render::CameraPreset(k));
    }
    if (pressed(GLFW_KEY_C)) camera_ = framing(first_preset_);
    if (pressed(GLFW_KEY_B)) {
      settings_.show_boundary = !settings_.show_boundary;
      if (settings_.show_boundary) upload_walls_once();
    }
    if (pressed(GLFW_KEY_E)) toggle_emitter();
    if (pressed(GLFW_KEY_P)) requests.screenshot = true;
    if (pressed(GLFW_KEY_R)) requests.toggle_recording = true;
    if (pressed(GLFW_KEY_F11)) window_.toggle_fullscreen();
    if (pressed(GLFW_KEY_TAB)) show_panels_ = !show_panels_;
    if (pressed(GLFW_KEY_H) || pressed(GLFW_KEY_F1)) show_help_ = !show_help_;
    if (pressed(GLFW_KEY_ESCAPE)) window_.close();
  }
  window_.forget_key_presses();  // typed into an ImGui field, or handled above
}

}  // namespace surge::app
