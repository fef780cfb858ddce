// Each scene family's first frame, rendered offscreen as `surge run --render` renders it, shows its
// particles: fluid (the dam break), grains (the granular column) and bodies (a Plummer sphere and the
// galaxies, whose solver reports no domain, so the camera and sphere size come from the bodies themselves:
// app/graphics/render_defaults.h), drawn in the glow style, their default. Before that, n-body frames were
// empty.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "app/backend_choice.h"
#include "app/graphics/offscreen_frames.h"
#include "app/render_options.h"
#include "sim/scene/scene.h"

namespace surge::app {
namespace {

// The share of the picture's left three quarters (the colour bar is at the right) whose pixels differ from
// the background, taken at the top-left corner.
double lit_share(const std::filesystem::path& png) {
  int width = 0, height = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.string().c_str(), &width, &height, &channels, 4);
  if (pixels == nullptr) return -1;
  long lit = 0, counted = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width * 3 / 4; ++x) {
      const unsigned char* p = pixels + 4 * (y * width + x);
      int difference = 0;
      for (int c = 0; c < 3; ++c) difference += std::abs(int(p[c]) - int(pixels[c]));
      lit += difference > 24 ? 1 : 0;
      ++counted;
    }
  }
  stbi_image_free(pixels);
  return double(lit) / double(counted);
}

TEST(SceneFamilies, EachFamilysFirstFrameShowsItsParticles) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "surge-scene-families";
  std::filesystem::remove_all(dir);
  struct Case {
    const char* scene;
    long particles;
  };
  for (const Case& c : {Case{"dam_break.toml", 3000}, Case{"granular_column.toml", 2000},
                        Case{"plummer.toml", 4096}, Case{"galaxies.toml", 4096}}) {
    SCOPED_TRACE(c.scene);
    Scene scene = load_scene(std::filesystem::path(SURGE_SOURCE_DIR) / "scenes" / c.scene);
    BackendChoice backend = choose_backend(ExecutionMode::cpu, scene, {.particles_override = c.particles});
    RenderOptions options;
    options.scene_look = scene.render;  // as `surge run` sets it
    options.frames_dir = dir / scene.name;
    options.size = "320x180";
    options.validate();
    RenderedFrames frames(*backend.simulation, scene, options, 1, -1, std::cerr);
    frames.write_if_due(backend.simulation->status());
    frames.finish();
    const std::filesystem::path png = options.frames_dir / (scene.name + "_000000.png");
    ASSERT_TRUE(std::filesystem::exists(png));
    const double share = lit_share(png);
    std::printf("%s (%s): %.1f %% of the picture shows particles\n", c.scene,
                std::string(render_style_name(scene.render.style)).c_str(), 100 * share);
    if (scene.solver == SolverKind::nbody) {
      EXPECT_EQ(scene.render.style, RenderStyle::glow);
    }
    // Left to look at: $OUT, else the temporary directory.
    const char* out = std::getenv("OUT");
    std::filesystem::copy_file(
        png,
        (out && *out ? std::filesystem::path(out) : std::filesystem::temp_directory_path()) /
            ("scene_family_" + scene.name + ".png"),
        std::filesystem::copy_options::overwrite_existing);
    // A frame with its particles in view covers several percent of it; an empty one none.
    EXPECT_GT(share, 0.01) << png;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace surge::app
