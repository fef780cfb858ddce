// An MP4 from RGBA frames, by piping them to ffmpeg. The file is written under a temporary name and
// renamed when ffmpeg finishes successfully.
//
// ffmpeg runs in a process group of its own, so a Ctrl-C at the terminal (which signals the whole
// foreground group) reaches Surge alone: Surge finishes the run and closes the pipe, and ffmpeg writes the
// MP4's index as at a normal end. An ffmpeg that saw the Ctrl-C itself would stop mid-stream and leave a
// file without its index.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "sim/io/temporary_files.h"

namespace surge::app {

class VideoEncoder {
 public:
  // Throws InputError when ffmpeg is not installed, std::runtime_error when it cannot be started.
  VideoEncoder(std::filesystem::path file, int width, int height, int fps);
  ~VideoEncoder();  // abandons an unfinished video (stops ffmpeg, removes the temporary file)
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  void add_frame(const std::vector<std::uint8_t>& rgba_top_down);
  // Waits for ffmpeg and renames the file into place; throws if ffmpeg failed.
  void finish();
  int frames() const { return frames_; }

 private:
  int wait_for_ffmpeg();  // closes the pipe; returns ffmpeg's wait status

  std::filesystem::path file_, temporary_;
  std::unique_ptr<TemporaryFileInFlight> in_flight_;  // the .part, and ffmpeg as its writer
  int width_, height_;
  int frames_ = 0;
  int pipe_ = -1;  // ffmpeg's stdin
  pid_t ffmpeg_ = 0;
};

}  // namespace surge::app
