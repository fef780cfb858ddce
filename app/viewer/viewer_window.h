// The viewer's window: GLFW with an OpenGL 4.5 core context loaded through glad, and Dear ImGui on it.
// Key presses are queued as GLFW delivers them and read once per frame (pressed()).
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

struct GLFWwindow;

namespace surge::app {

// The window could not be opened. The message says why and what to do instead.
class WindowError : public std::runtime_error {
 public:
  WindowError(const std::string& message, int exit_code)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

class ViewerWindow {
 public:
  // Throws WindowError. Without vsync a scripted run (--frames) runs as fast as it can.
  ViewerWindow(int width, int height, bool vsync);
  ~ViewerWindow();
  ViewerWindow(const ViewerWindow&) = delete;
  ViewerWindow& operator=(const ViewerWindow&) = delete;

  GLFWwindow* handle() const { return window_; }
  void close();
  // Whether `key` (GLFW_KEY_...) was pressed since forget_key_presses().
  bool pressed(int key) const;
  void forget_key_presses() { key_presses_.clear(); }
  // Fullscreen on the primary monitor, or back to the window's place and size before it.
  void toggle_fullscreen();

 private:
  GLFWwindow* window_ = nullptr;
  std::vector<int> key_presses_;  // in order
  bool fullscreen_ = false;
  std::array<int, 2> windowed_position_{}, windowed_size_{};
};

}  // namespace surge::app
