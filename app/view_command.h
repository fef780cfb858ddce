// `surge view [SCENE]`: the scene live in a window, with controls. Built only with GLFW and Dear ImGui;
// without them, or without a display, it says so and points to `surge run --render`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/render_options.h"
#include "sim/core/live_parameter.h"

namespace CLI {
class App;
}

namespace surge::app {

struct ViewOptions {
  std::filesystem::path scene_path;  // empty: scenes/dam_break.toml
  std::string backend = "auto";
  long particles = 0;
  RenderOptions look;                // --size is the window size
  long frames = 0;                   // > 0: run this many frames, then exit (tests, scripted screenshots)
  std::filesystem::path screenshot;  // with --frames: a PNG of the last frame
  bool fullscreen = false;
  std::string mode;              // empty: --backend decides; else an execution mode (docs/lessons/)
  long switch_after_frames = 0;  // > 0: after this many frames, switch live to switch_to_mode (tests)
  std::string switch_to_mode;
  // --set NAME=VALUE: live parameters applied before the first step, as the panel applies them (scripted
  // runs)
  std::vector<std::pair<std::string, ParameterValue>> live_edits;
};

// "NAME=VALUE" with VALUE a number or three comma-separated numbers (a vector); nullopt when malformed.
std::optional<std::pair<std::string, ParameterValue>> parse_live_edit(const std::string& text);

CLI::App* add_view_command(CLI::App& parent, ViewOptions& options);
// Returns the exit code; kExitBadInput when there is no display or no viewer in this build.
int run_view(ViewOptions options);
// Whether `surge view` could open a window here: a display (DISPLAY or WAYLAND_DISPLAY) and a viewer built
// in.
bool viewer_can_open();

}  // namespace surge::app
