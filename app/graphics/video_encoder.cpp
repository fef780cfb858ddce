#include "app/graphics/video_encoder.h"

#include <csignal>
#include <stdexcept>
#include <string>

#include "app/exit_codes.h"
#include "app/render_options.h"

namespace surge::app {
namespace {

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

VideoEncoder::VideoEncoder(std::filesystem::path file, int width, int height, int fps)
    : file_(std::move(file)), temporary_(file_.string() + ".part"), width_(width), height_(height) {
  const auto ffmpeg = find_ffmpeg();
  if (!ffmpeg)
    throw InputError("--video " + file_.string() + ": ffmpeg is not installed (not found on PATH)");
  // A dead ffmpeg must make fwrite fail (and us report it), not kill Surge with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  // yuv420p needs even sizes: pad by one pixel when odd. H.264 where this ffmpeg has it, else its default.
  const std::string command =
      shell_quoted(ffmpeg->string()) + " -hide_banner -loglevel error -y -f rawvideo -pix_fmt rgba -s " +
      std::to_string(width) + "x" + std::to_string(height) + " -r " + std::to_string(fps) +
      " -i - -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' -pix_fmt yuv420p -f mp4 " +
      shell_quoted(temporary_.string());
  pipe_ = ::popen(command.c_str(), "w");
  if (!pipe_) throw std::runtime_error("cannot start ffmpeg for " + file_.string());
}

VideoEncoder::~VideoEncoder() {
  if (!pipe_) return;
  ::pclose(pipe_);
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void VideoEncoder::add_frame(const std::vector<std::uint8_t>& rgba_top_down) {
  if (rgba_top_down.size() != std::size_t(width_) * std::size_t(height_) * 4) {
    throw std::runtime_error("video frame of the wrong size");
  }
  if (std::fwrite(rgba_top_down.data(), 1, rgba_top_down.size(), pipe_) != rgba_top_down.size()) {
    throw std::runtime_error("ffmpeg stopped taking frames for " + file_.string());
  }
  ++frames_;
}

void VideoEncoder::finish() {
  std::FILE* pipe = pipe_;
  pipe_ = nullptr;
  const int status = ::pclose(pipe);
  if (status != 0) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
    throw std::runtime_error("ffmpeg failed writing " + file_.string() + " (exit status " +
                             std::to_string(status) + ")");
  }
  std::filesystem::rename(temporary_, file_);
}

}  // namespace surge::app
