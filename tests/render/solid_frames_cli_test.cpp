// `surge run SCENE --render DIR` draws the scene's solids: the floating box of scenes/floating_box.toml shows
// in the frames it writes, where the frames of the same run with --no-solids show the water and the tank.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/app/surge_process.h"

namespace surge {
namespace {

namespace fs = std::filesystem;

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
};

Image read_png(const fs::path& file) {
  Image image;
  int channels = 0;
  unsigned char* data = stbi_load(file.c_str(), &image.width, &image.height, &channels, 3);
  if (data == nullptr) return image;
  image.rgb.assign(data, data + std::size_t(image.width) * std::size_t(image.height) * 3);
  stbi_image_free(data);
  return image;
}

TEST(SolidFramesCli, FloatingBoxShowsInTheRenderedFrames) {
  const fs::path dir = fs::temp_directory_path() / ("surge_solid_frames_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string scene = SURGE_SOURCE_DIR "/scenes/floating_box.toml";
  for (const char* variant : {"with", "without"}) {
    std::vector<std::string> args = {"run",     scene, "--backend", "cpu",     "--steps",  "10",
                                     "--every", "10",  "--size",    "320x240", "--render", variant};
    if (std::string(variant) == "without") args.push_back("--no-solids");
    const testing_support::SurgeResult r = testing_support::run_surge(dir, args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // Frame 1 is step 10: the box has started to sink.
  const Image with = read_png(dir / "with" / "floating_box_000001.png");
  const Image without = read_png(dir / "without" / "floating_box_000001.png");
  ASSERT_EQ(with.width, 320);
  ASSERT_EQ(without.width, 320);
  std::size_t changed = 0;
  int x0 = with.width, x1 = -1, y0 = with.height, y1 = -1;
  for (int y = 0; y < with.height; ++y)
    for (int x = 0; x < with.width; ++x) {
      const std::size_t k = (std::size_t(y) * std::size_t(with.width) + std::size_t(x)) * 3;
      if (with.rgb[k] == without.rgb[k] && with.rgb[k + 1] == without.rgb[k + 1] &&
          with.rgb[k + 2] == without.rgb[k + 2])
        continue;
      ++changed;
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
  const double share = double(changed) / double(with.width * with.height);
  std::printf("the box changed %zu pixels (%.1f%% of the frame), within x %d..%d, y %d..%d\n", changed,
              100.0 * share, x0, x1, y0, y1);
  // The 0.1 m box in a 0.3 m pool, framed whole: a few per cent of the frame, in its middle.
  EXPECT_GT(share, 0.01);
  EXPECT_LT(share, 0.25);
  EXPECT_GT(x0, with.width / 5);
  EXPECT_LT(x1, with.width * 4 / 5);
  EXPECT_GT(y0, with.height / 10);
  EXPECT_LT(y1, with.height * 9 / 10);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace surge
