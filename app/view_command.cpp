#include "app/view_command.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "app/backend_choice.h"
#include "app/cli_checks.h"
#include "app/exit_codes.h"
#if SURGE_HAVE_VIEWER
#include "app/viewer/viewer.h"
#endif

namespace surge::app {

CLI::App* add_view_command(CLI::App& parent, ViewOptions& options) {
  CLI::App* view =
      parent.add_subcommand("view", "Watch and steer a scene live in a window (GLFW, OpenGL, ImGui)");
  view->add_option("scene", options.scene_path, "Scene file (TOML); default scenes/dam_break.toml")
      ->type_name("SCENE.toml");
  view->add_option("--backend", options.backend, "Where to step: cpu, gpu, or auto")
      ->check(CLI::IsMember({"cpu", "gpu", "auto"}))
      ->capture_default_str();
  view->add_option("--particles", options.particles, "Target fluid particle count, replacing the scene's")
      ->transform(particle_count());
  add_render_look_options(*view, options.look, false);
  view->add_option("--frames", options.frames, "Run N frames, then exit (with --screenshot: save the last)")
      ->transform(whole_at_least(1));
  view->add_option("--screenshot", options.screenshot, "With --frames: write the last frame as a PNG")
      ->type_name("FILE.png");
  view->add_flag("--fullscreen", options.fullscreen, "Start fullscreen (F11 toggles)");
  view->add_option("--mode", options.mode,
                   "Start in an execution mode: cpu, hybrid, hybrid-overlap or gpu (replaces --backend; "
                   "the Lessons panel switches it live, docs/lessons/)")
      ->check(CLI::IsMember(mode_names()));
  view->add_option_function<std::vector<std::string>>(
          "--switch-mode-after",
          [&options](const std::vector<std::string>& values) {
            long frames = 0;
            try {
              std::size_t used = 0;
              frames = std::stol(values[0], &used);
              if (used != values[0].size()) frames = 0;
            } catch (const std::exception&) {
              frames = 0;
            }
            if (frames <= 0)
              throw CLI::ValidationError("--switch-mode-after", "N must be a positive integer");
            if (!parse_mode(values[1]))
              throw CLI::ValidationError("--switch-mode-after",
                                         "MODE must be one of cpu, hybrid, "
                                         "hybrid-overlap, gpu; got " +
                                             values[1]);
            options.switch_after_frames = frames;
            options.switch_to_mode = values[1];
          },
          "After N frames, switch the running simulation live to MODE, as the Lessons panel does")
      ->expected(2)
      ->type_name("N MODE");
  view->add_option_function<std::vector<std::string>>(
          "--set",
          [&options](const std::vector<std::string>& values) {
            for (const std::string& text : values) {
              const auto edit = parse_live_edit(text);
              if (!edit)
                throw CLI::ValidationError("--set", "expected NAME=NUMBER or NAME=X,Y,Z, got '" + text + "'");
              options.live_edits.push_back(*edit);
            }
          },
          "Change a live parameter before the first step, as the Scene panel does (repeatable; names as "
          "docs/scenes.md#live-parameters lists them)")
      ->type_name("NAME=VALUE");
  return view;
}

std::optional<std::pair<std::string, ParameterValue>> parse_live_edit(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == 0 || equals == std::string::npos) return std::nullopt;
  std::vector<double> numbers;
  std::size_t start = equals + 1;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    try {
      std::size_t used = 0;
      numbers.push_back(std::stod(part, &used));
      if (used != part.size()) return std::nullopt;
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const std::string name = text.substr(0, equals);
  if (numbers.size() == 1) return std::make_pair(name, ParameterValue(numbers[0]));
  if (numbers.size() == 3)
    return std::make_pair(name,
                          ParameterValue(Vec3f{float(numbers[0]), float(numbers[1]), float(numbers[2])}));
  return std::nullopt;
}

namespace {
bool has_display() {
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (display && *display) || (wayland && *wayland);
}
}  // namespace

bool viewer_can_open() {
  return SURGE_HAVE_VIEWER && has_display();
}

int run_view(ViewOptions options) {
  options.look.validate();
  if (!has_display()) {
    std::cerr << "surge view needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set.\n"
                 "On a server, render frames offscreen instead:\n"
                 "  surge run SCENE --render frames/ [--video run.mp4] [--size 1920x1080]\n";
    return kExitBadInput;
  }
#if SURGE_HAVE_VIEWER
  return run_viewer(options);
#else
  std::cerr << "this surge was built without `surge view` (GLFW and Dear ImGui were missing when it was "
               "configured: libglfw3-dev, libimgui-dev). Offscreen frames work without them:\n"
               "  surge run SCENE --render frames/\n";
  return kExitBadInput;
#endif
}

}  // namespace surge::app
