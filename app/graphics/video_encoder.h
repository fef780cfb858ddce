// An MP4 from RGBA frames, by piping them to ffmpeg. The file is written under a temporary name and
// renamed when ffmpeg finishes successfully.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <vector>

namespace surge::app {

class VideoEncoder {
 public:
  // Throws InputError when ffmpeg is not installed, std::runtime_error when it cannot be started.
  VideoEncoder(std::filesystem::path file, int width, int height, int fps);
  ~VideoEncoder();  // abandons an unfinished video (removes the temporary file)
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  void add_frame(const std::vector<std::uint8_t>& rgba_top_down);
  // Waits for ffmpeg and renames the file into place; throws if ffmpeg failed.
  void finish();
  int frames() const { return frames_; }

 private:
  std::filesystem::path file_, temporary_;
  int width_, height_;
  int frames_ = 0;
  std::FILE* pipe_ = nullptr;
};

}  // namespace surge::app
