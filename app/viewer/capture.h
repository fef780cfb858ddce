// The viewer's captures of its window as drawn: screenshots (PNG), and recordings (numbered PNG frames in a
// directory of their own, and an MP4 beside them through ffmpeg where it is installed).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "app/graphics/video_encoder.h"
#include "sim/backend/simulation.h"

namespace surge::app {

class Capture {
 public:
  // "surge-YYYYmmdd-HHMMSS.png" in the working directory, or "...-2.png", "...-3.png"... when taken: two
  // screenshots in one second keep both.
  static std::filesystem::path new_screenshot_name();
  // Writes the window's back buffer to `file`; returns the line the viewer shows and prints.
  std::string screenshot(const std::filesystem::path& file, int width, int height, const StepStatus& status);

  // Starts a recording at this window size, or stops the one running; returns the line the viewer shows.
  std::string toggle_recording(int width, int height);
  // Adds the window's back buffer to the recording, when one runs and the window still has its size.
  void record_frame(int width, int height);
  bool recording() const { return recording_.has_value(); }
  int recorded_frames() const { return recording_ ? recording_->frames : 0; }
  // Drops the recording; its unfinished video is abandoned (a restart).
  void abandon_recording() { recording_.reset(); }
  // Finishes the recording's video, if one runs (the viewer closes).
  void finish();

 private:
  struct Recording {
    std::filesystem::path directory;
    int frames = 0;
    std::optional<VideoEncoder> video;
    int width = 0, height = 0;
  };
  std::optional<Recording> recording_;
};

}  // namespace surge::app
