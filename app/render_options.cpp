#include "app/render_options.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "app/exit_codes.h"

namespace surge::app {

void RenderOptions::validate() {
  int w = 0, h = 0;
  char tail = 0;
  if (std::sscanf(size.c_str(), "%dx%d%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > 16384 ||
      h > 16384) {
    throw InputError("--size '" + size +
                     "': expected WIDTHxHEIGHT in pixels, each 16..16384, e.g. 1920x1080");
  }
  width = w;
  height = h;
  if (!video_file.empty() && !find_ffmpeg()) {
    throw InputError(
        "--video " + video_file.string() +
        ": ffmpeg is not installed (not found on PATH); install it (Debian/Ubuntu: apt-get install "
        "ffmpeg), or use --render DIR for PNG frames and encode them elsewhere");
  }
}

std::optional<std::filesystem::path> find_ffmpeg() {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / "ffmpeg";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

void add_render_look_options(CLI::App& command, RenderOptions& options, bool with_video) {
  command.add_option("--size", options.size, "Image size in pixels, WIDTHxHEIGHT")->capture_default_str();
  command.add_option("--color-by", options.color_by, "Particle colour: speed, density, pressure or fixed")
      ->check(CLI::IsMember({"speed", "density", "pressure", "fixed"}))
      ->capture_default_str();
  command.add_option("--camera", options.camera, "Camera preset: perspective, front, side or top")
      ->check(CLI::IsMember({"perspective", "front", "side", "top"}))
      ->capture_default_str();
  command.add_flag("--boundary", options.show_boundary, "Also draw the wall (boundary) particles");
  command.add_flag("--no-solids", options.hide_solids,
                   "Do not draw the scene's [[solid]]s (drawn by default as shaded meshes, moving with the "
                   "simulation)");
  command
      .add_option("--style", options.style,
                  "Drawing style: spheres (particles coloured by --color-by), surface (the fluid as "
                  "a liquid surface with a floor and a glass tank) or glow (glowing sprites whose light adds "
                  "up, sized and lit by mass; n-body's default); default: the scene's [render] style")
      ->check(CLI::IsMember({"spheres", "surface", "glow"}));
  command
      .add_option("--filter", options.filter,
                  "Surface style: depth filter, bilateral or narrow_range (Truong & Yuksel 2018) (scene: "
                  "render.filter)")
      ->check(CLI::IsMember({"bilateral", "narrow_range"}));
  command
      .add_option("--particle-passes", options.particle_passes,
                  "Surface style: how the shadow map, thickness and depth passes draw the particles, compute "
                  "(splatted by compute shaders) or sprites (point sprites through the raster pipeline) "
                  "(scene: render.particle_passes)")
      ->check(CLI::IsMember({"compute", "sprites"}));
  // Ranges as the scene's [render] keys (sim/scene/read_render.cpp).
  command
      .add_option("--filter-radius", options.filter_radius,
                  "Surface style: depth smoothing radius in particle radii (scene: render.filter_radius)")
      ->check(CLI::Range(0.0f, 10.0f));
  command
      .add_option("--absorption", options.absorption,
                  "Surface style: absorption of the water [1/m] (scene: render.absorption)")
      ->check(CLI::Range(0.0f, 1000.0f));
  command
      .add_option("--refraction", options.refraction,
                  "Surface style: refraction strength (scene: render.refraction)")
      ->check(CLI::Range(0.0f, 2.0f));
  if (with_video) {
    command.add_option("--fps", options.video_fps, "Frames per second of the --video file")
        ->check(CLI::Range(1, 240))
        ->capture_default_str();
  }
}

RenderLook RenderOptions::resolved_look() const {
  RenderLook look = scene_look;
  if (!style.empty()) look.style = *parse_render_style(style);
  if (!filter.empty()) look.filter = *parse_depth_filter(filter);
  if (!particle_passes.empty()) look.particle_passes = *parse_particle_passes(particle_passes);
  if (filter_radius) look.filter_radius = *filter_radius;
  if (absorption) look.absorption = *absorption;
  if (refraction) look.refraction = *refraction;
  return look;
}

bool renderer_built() {
  return SURGE_HAVE_RENDER;
}

}  // namespace surge::app
