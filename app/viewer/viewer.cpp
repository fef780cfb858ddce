// [Loop] and [Capture] of the viewer (viewer.h): one frame steps the simulation, feeds and draws the
// particles, then the panels over them, captures, and last carries out what the input asked for (a restart
// or a mode switch replaces the simulation, so it waits until nothing of this frame refers to the old one).
#include "app/viewer/viewer.h"

#include <glad/gl.h>
// GLFW after glad, and without its own GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <exception>
#include <iostream>

#include "app/graphics/particle_feed.h"

namespace surge::app {

int run_viewer(const ViewOptions& options) {
  try {
    Viewer viewer(options);
    return viewer.run();
  } catch (const WindowError& e) {
    std::cerr << e.what() << '\n';
    return e.exit_code();
  }
}

int Viewer::run() {
  while (!glfwWindowShouldClose(window_.handle())) {
    glfwPollEvents();
    int width = 0, height = 0;
    glfwGetFramebufferSize(window_.handle(), &width, &height);
    if (width == 0 || height == 0) {  // minimised
      glfwWaitEvents();
      continue;
    }
    const double frame_s = step_and_draw(width, height);

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    Requests requests = handle_input(frame_s, height);
    if (show_panels_) draw_panels(requests, height);
    if (show_help_) draw_help(width, height);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    capture(requests, width, height);
    carry_out(requests);
    glfwSwapBuffers(window_.handle());
  }
  const StepStatus last = session_->simulation().status();
  std::cout << "last frame: mode " << mode_name(session_->mode()) << ", step " << last.step
            << ", t = " << last.time_s << " s\n";
  capture_.finish();
  return exit_code_;
}

double Viewer::step_and_draw(int width, int height) {
  // Step, then feed GL. status() is a small readback that shows in the ledger: twice a second, or when
  // paused.
  const bool stepped = !paused_ || single_step_;
  const int steps = !stepped ? 0 : single_step_ ? 1 : steps_per_frame_;
  single_step_ = false;
  // The last frame of a scripted run (--frames N --screenshot) reads it too, so that its panel shows the
  // time of the picture.
  const bool last_frame = options_.frames > 0 && frame_ + 1 >= options_.frames;
  const FrameFigures figures =
      session_->frame(steps, stepped && (frame_ % 30 == 0 || paused_ || last_frame), settings_.color_by);
  if (stepped) stats_.record_steps(session_->simulation().fluid_count(), steps);
  if (session_->status().instability != Instability::none && !paused_) {
    last_message_ = "unstable: " + session_->status().diagnosis() + " (paused; Backspace restarts)";
    std::cerr << last_message_ << '\n';
    paused_ = true;
  }
  if (figures.stages.steps > 0) {
    stats_.record_stages(figures.stages);
    lessons_.record(session_->mode(), figures.stages, figures.step_bytes);
  }

  // Draw the particles (and the walls where moving solids have carried them), then record before the panels
  // cover them.
  if (settings_.show_boundary && stepped) {
    Simulation& simulation = session_->simulation();
    update_moving_boundary(simulation, renderer_.boundary(), simulation.ledger());
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  renderer_.draw(camera_, width, height, settings_);
  ++frame_;
  capture_.record_frame(width, height);
  return stats_.end_frame(session_->simulation().ledger().total_bytes());
}

// The panels are in the back buffer now: screenshots taken here include them.
void Viewer::capture(const Requests& requests, int width, int height) {
  if (requests.screenshot) screenshot(Capture::new_screenshot_name(), width, height);
  if (options_.frames > 0 && frame_ >= options_.frames) {
    if (!options_.screenshot.empty()) screenshot(options_.screenshot, width, height);
    window_.close();
  }
  if (requests.toggle_recording) {
    last_message_ = capture_.toggle_recording(width, height);
    std::cout << last_message_ << '\n';
  }
}

void Viewer::screenshot(const std::filesystem::path& file, int width, int height) {
  last_message_ = capture_.screenshot(file, width, height, session_->simulation().status());
  std::cout << last_message_ << '\n';
}

void Viewer::carry_out(const Requests& requests) {
  if (requests.switch_to) {
    try {
      switch_mode(*requests.switch_to);
    } catch (const std::exception& e) {
      last_message_ = std::string("mode switch failed: ") + e.what();
      std::cerr << last_message_ << '\n';
    }
  }
  if (requests.restart) {
    try {
      restart(scene_, particles_now_);
    } catch (const std::exception& e) {
      last_message_ = e.what();
    }
  }
}

}  // namespace surge::app
