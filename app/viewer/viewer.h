// The `surge view` window, by its parts:
//   [Window]    GLFW, OpenGL 4.5 core through glad, Dear ImGui (viewer_window.h)
//   [Session]   a running simulation and what feeds it to GL; rebuilt on restart (viewer_session.cpp)
//   [Input]     camera (mouse), stirring hand, keyboard shortcuts (viewer_input.cpp)
//   [Panels]    run, scene and parameters, lessons, view, help overlay (viewer_panels.cpp); statistics and
//               timings (stats_panel.h)
//   [Capture]   screenshots and recording (capture.h)
//   [Loop]      one frame: step, feed, draw, panels, capture, then what the input asked for (viewer.cpp)
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "app/graphics/live_session.h"
#include "app/view_command.h"
#include "app/viewer/capture.h"
#include "app/viewer/lessons_panel.h"
#include "app/viewer/live_parameters_panel.h"
#include "app/viewer/stats_panel.h"
#include "app/viewer/viewer_window.h"
#include "render/camera.h"
#include "render/particle_renderer.h"
#include "sim/backend/execution_mode.h"
#include "sim/scene/scene.h"

namespace surge::app {

// Returns the exit code: kExitBadInput without a display or for a refused --set, kExitRuntimeError without
// an OpenGL 4.5 context.
int run_viewer(const ViewOptions& options);

class Viewer {
 public:
  // Opens the window and starts the scene. Throws WindowError, and what LiveSession throws.
  explicit Viewer(const ViewOptions& options);
  // Frames until the window closes (Esc, or --frames); returns the exit code.
  int run();

 private:
  // What a frame's input and panels ask for, carried out once the frame is drawn.
  struct Requests {
    bool screenshot = false;
    bool toggle_recording = false;
    bool restart = false;
    std::optional<ExecutionMode> switch_to;
  };

  // [Session]
  void apply_live_edits();
  void restart(const Scene& next, long particles);
  void switch_mode(ExecutionMode next);
  void toggle_emitter();
  void upload_walls_once();
  render::OrbitCamera framing(render::CameraPreset preset) const;
  void reset_colors();
  void apply_scene_look();  // the scene's [render] under the command line's --style and surface options
  float default_hand_radius() const;

  // [Input]
  Requests handle_input(double frame_s, int height);
  void handle_mouse(double frame_s, int height);
  void handle_keys(Requests& requests);

  // [Panels]
  void draw_panels(Requests& requests, int height);
  void draw_run_section(Requests& requests);
  void draw_scene_section();
  void draw_view_section();
  void draw_surface_controls();
  void draw_help(int width, int height);

  // [Capture]
  void capture(const Requests& requests, int width, int height);
  void screenshot(const std::filesystem::path& file, int width, int height);

  // [Loop]
  double step_and_draw(int width, int height);  // returns the frame's duration [s]
  void carry_out(const Requests& requests);

  const ViewOptions& options_;
  ViewerWindow window_;  // first: the members below need its GL context
  render::ParticleRenderer renderer_;
  render::RenderSettings settings_;
  Scene scene_;
  long particles_now_;  // the particle count of the running session (0: the scene's)
  std::optional<ExecutionMode> first_mode_;
  std::unique_ptr<LiveSession> session_;
  LessonsPanel lessons_;
  StatsPanel stats_;
  LiveParametersPanel live_;  // the solver's other parameters, applied at once and kept over restarts
  render::CameraPreset first_preset_;
  render::OrbitCamera camera_;
  std::vector<std::filesystem::path> scene_files_;
  int particles_edit_ = 0;  // applies on restart
  bool paused_ = false, single_step_ = false, show_panels_ = true, show_help_ = false;
  int steps_per_frame_ = 1;
  Capture capture_;
  std::string last_message_;
  long frame_ = 0;
  bool stirring_ = false;
  Vec3f last_hand_point_{};
  float hand_radius_ = 0;
  int exit_code_ = kExitSuccess;
};

}  // namespace surge::app
