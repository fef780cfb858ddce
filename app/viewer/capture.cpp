#include "app/viewer/capture.h"

#include <glad/gl.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "app/render_options.h"
#include "render/png_writer.h"

namespace surge::app {
namespace {

// The back buffer, RGBA rows from the top.
std::vector<std::uint8_t> read_window(int width, int height) {
  const std::size_t row = std::size_t(width) * 4;
  std::vector<std::uint8_t> bottom_up(row * std::size_t(height)), top_down(bottom_up.size());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  for (int y = 0; y < height; ++y) {
    std::memcpy(&top_down[std::size_t(y) * row], &bottom_up[std::size_t(height - 1 - y) * row], row);
  }
  for (std::size_t k = 3; k < top_down.size(); k += 4) top_down[k] = 255;  // the window may have alpha
  return top_down;
}

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", std::localtime(&now));
  return text;
}

}  // namespace

std::filesystem::path Capture::new_screenshot_name() {
  const std::string stem = "surge-" + timestamp(), extension = ".png";
  std::filesystem::path name = stem + extension;
  for (int k = 2; std::filesystem::exists(name); ++k) name = stem + "-" + std::to_string(k) + extension;
  return name;
}

std::string Capture::screenshot(const std::filesystem::path& file, int width, int height,
                                const StepStatus& status) {
  render::write_png(file, width, height, read_window(width, height));
  char where[96];
  std::snprintf(where, sizeof where, " (step %ld, t = %.6f s)", status.step, status.time_s);
  return "saved " + file.string() + where;
}

std::string Capture::toggle_recording(int width, int height) {
  if (recording_) {
    if (recording_->video) recording_->video->finish();
    const std::string line =
        "recorded " + std::to_string(recording_->frames) + " frames in " + recording_->directory.string();
    recording_.reset();
    return line;
  }
  recording_.emplace();
  recording_->directory = "surge-recording-" + timestamp();
  recording_->width = width;
  recording_->height = height;
  std::filesystem::create_directories(recording_->directory);
  if (find_ffmpeg()) {
    recording_->video.emplace(recording_->directory / "video.mp4", width, height, 60);
    return "recording PNG frames and video.mp4 to " + recording_->directory.string();
  }
  return "recording PNG frames to " + recording_->directory.string() + " (no ffmpeg: no MP4)";
}

void Capture::record_frame(int width, int height) {
  if (!recording_ || width != recording_->width || height != recording_->height) return;
  const auto image = read_window(width, height);
  char name[32];
  std::snprintf(name, sizeof name, "frame_%06d.png", recording_->frames++);
  render::write_png(recording_->directory / name, width, height, image);
  if (recording_->video) recording_->video->add_frame(image);
}

void Capture::finish() {
  if (recording_ && recording_->video) recording_->video->finish();
}

}  // namespace surge::app
