// PNG from SVG through `rsvg-convert` (Debian package librsvg2-bin), run as a child process: the PNG is
// then exactly the SVG that Surge wrote, drawn by a well-kept renderer, with no image library linked in.
#pragma once

#include <filesystem>
#include <string>

namespace surge::app {

struct RasterResult {
  bool written = false;
  std::string why_not;  // when not written: what went wrong, and what to install
};

// Renders `svg` to `png`, `width_px` wide (height in proportion), on white. Writes "<png>.tmp" and
// renames it, so `png` is either complete or absent. Never throws for a missing tool: says why instead.
RasterResult rasterize_svg(const std::filesystem::path& svg, const std::filesystem::path& png, int width_px);

}  // namespace surge::app
