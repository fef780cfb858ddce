#include "app/svg_rasterizer.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <system_error>
#include <vector>

extern char** environ;

namespace surge::app {

RasterResult rasterize_svg(const std::filesystem::path& svg, const std::filesystem::path& png, int width_px) {
  RasterResult result;
  const std::filesystem::path temporary = png.string() + ".tmp";
  std::vector<std::string> args = {"rsvg-convert",
                                   "--width",
                                   std::to_string(width_px),
                                   "--keep-aspect-ratio",
                                   "--background-color",
                                   "white",
                                   "--format",
                                   "png",
                                   "--output",
                                   temporary.string(),
                                   svg.string()};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  // The child's stdout and stderr go to /dev/null: a missing font warning must not clutter a run's output.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t child = 0;
  const int spawned = posix_spawnp(&child, "rsvg-convert", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    result.why_not = "rsvg-convert not found (" + std::system_category().message(spawned) +
                     "); install the Debian package librsvg2-bin for PNG plots";
    return result;
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    // posix_spawnp reports a missing program as exit 127 of the child on glibc.
    result.why_not = WIFEXITED(status) && WEXITSTATUS(status) == 127
                         ? "rsvg-convert not found; install the Debian package librsvg2-bin for PNG plots"
                         : "rsvg-convert failed on " + svg.string();
    return result;
  }
  std::error_code error;
  std::filesystem::rename(temporary, png, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    result.why_not = "cannot rename " + temporary.string() + " to " + png.string();
    return result;
  }
  result.written = true;
  return result;
}

}  // namespace surge::app
