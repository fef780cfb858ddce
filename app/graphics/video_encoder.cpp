#include "app/graphics/video_encoder.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <string>

#include "app/exit_codes.h"
#include "app/render_options.h"

extern char** environ;

namespace surge::app {

VideoEncoder::VideoEncoder(std::filesystem::path file, int width, int height, int fps)
    : file_(std::move(file)), temporary_(file_.string() + ".part"), width_(width), height_(height) {
  const auto ffmpeg = find_ffmpeg();
  if (!ffmpeg)
    throw InputError("--video " + file_.string() + ": ffmpeg is not installed (not found on PATH)");
  // A dead ffmpeg must make write() fail (and us report it), not kill Surge with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  in_flight_ = std::make_unique<TemporaryFileInFlight>(temporary_);

  // yuv420p needs even sizes: pad by one pixel when odd. H.264 where this ffmpeg has it, else its default.
  std::vector<std::string> args = {ffmpeg->string(),
                                   "-hide_banner",
                                   "-loglevel",
                                   "error",
                                   "-y",
                                   "-f",
                                   "rawvideo",
                                   "-pix_fmt",
                                   "rgba",
                                   "-s",
                                   std::to_string(width) + "x" + std::to_string(height),
                                   "-r",
                                   std::to_string(fps),
                                   "-i",
                                   "pipe:0",
                                   "-vf",
                                   "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                                   "-pix_fmt",
                                   "yuv420p",
                                   "-f",
                                   "mp4",
                                   temporary_.string()};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0)
    throw std::runtime_error("cannot start ffmpeg for " + file_.string() + ": " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, ends[0], STDIN_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own: see the header
  const int spawned = posix_spawn(&ffmpeg_, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  ::close(ends[0]);
  if (spawned != 0) {
    ::close(ends[1]);
    ffmpeg_ = 0;
    throw std::runtime_error("cannot start ffmpeg for " + file_.string() + ": " + std::strerror(spawned));
  }
  pipe_ = ends[1];
  in_flight_->set_writer(ffmpeg_);
}

VideoEncoder::~VideoEncoder() {
  if (ffmpeg_ == 0) return;
  ::kill(ffmpeg_, SIGKILL);
  wait_for_ffmpeg();
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

int VideoEncoder::wait_for_ffmpeg() {
  if (pipe_ >= 0) ::close(pipe_);
  pipe_ = -1;
  int status = 0;
  while (::waitpid(ffmpeg_, &status, 0) < 0 && errno == EINTR) {
  }
  ffmpeg_ = 0;
  in_flight_->set_writer(0);
  return status;
}

void VideoEncoder::add_frame(const std::vector<std::uint8_t>& rgba_top_down) {
  if (rgba_top_down.size() != std::size_t(width_) * std::size_t(height_) * 4) {
    throw std::runtime_error("video frame of the wrong size");
  }
  const std::uint8_t* data = rgba_top_down.data();
  std::size_t left = rgba_top_down.size();
  while (left > 0) {
    const ssize_t written = ::write(pipe_, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0)
      throw std::runtime_error("ffmpeg stopped taking frames for " + file_.string() + ": " +
                               std::strerror(written < 0 ? errno : EIO));
    data += written;
    left -= std::size_t(written);
  }
  ++frames_;
}

void VideoEncoder::finish() {
  if (ffmpeg_ == 0) return;
  const int status = wait_for_ffmpeg();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
    throw std::runtime_error("ffmpeg failed writing " + file_.string() + " (" +
                             (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                                : "signal " + std::to_string(WTERMSIG(status))) +
                             ")");
  }
  std::error_code error;
  std::filesystem::rename(temporary_, file_, error);
  if (error) throw std::runtime_error("cannot write '" + file_.string() + "': " + error.message());
}

}  // namespace surge::app
