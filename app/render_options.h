// Command-line options shared by `surge run --render`, `surge bench --render` and `surge view`: image
// size, colouring, camera. Parsed without any OpenGL, so a build without the renderer still knows them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "sim/scene/render_look.h"

namespace CLI {
class App;
}

namespace surge::app {

struct RenderOptions {
  std::filesystem::path frames_dir;  // --render DIR: numbered PNG frames
  std::filesystem::path video_file;  // --video FILE.mp4: frames piped to ffmpeg
  std::string size = "1280x720";
  int width = 1280, height = 720;  // from size, after validate()
  std::string color_by = "speed";
  std::string camera = "perspective";
  bool show_boundary = false;
  bool hide_solids = false;  // --no-solids: the scene's [[solid]]s are drawn as meshes unless given
  int video_fps = 30;
  // --style and the surface's parameters: over the scene's [render] table where given.
  std::string style;            // "spheres", "surface", "glow"; empty: the scene's
  std::string filter;           // "bilateral", "narrow_range"; empty: the scene's
  std::string particle_passes;  // "compute", "sprites"; empty: the scene's
  std::optional<float> filter_radius, absorption, refraction;
  RenderLook scene_look;  // the scene's [render] (the command sets it once the scene is loaded)

  // The scene's [render] with the command line's values over it.
  RenderLook resolved_look() const;

  bool writes_frames() const { return !frames_dir.empty() || !video_file.empty(); }
  // Checks --size ("WxH", 16..16384 each) and that --video has an ffmpeg to go to; throws InputError
  // naming the option.
  void validate();
};

// --size, --color-by, --camera, --boundary, --style and the surface's --filter, --filter-radius,
// --absorption, --refraction and --particle-passes (and --fps when with_video).
void add_render_look_options(CLI::App& command, RenderOptions& options, bool with_video);

// The ffmpeg executable on PATH, if any.
std::optional<std::filesystem::path> find_ffmpeg();

// Whether this surge was built with the OpenGL renderer, and why not.
bool renderer_built();
inline constexpr const char* kNoRendererMessage =
    "this surge was built without the OpenGL renderer (glad from python3-glad, or stb_image_write.h from "
    "libstb-dev, was missing when it was configured); install them and rebuild";

}  // namespace surge::app
