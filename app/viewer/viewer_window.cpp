#include "app/viewer/viewer_window.h"

#include <glad/gl.h>
// GLFW after glad, and without its own GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <iostream>

#include "app/exit_codes.h"

namespace surge::app {
namespace {

void glfw_error(int code, const char* text) {
  std::cerr << "GLFW error " << code << ": " << text << '\n';
}

}  // namespace

ViewerWindow::ViewerWindow(int width, int height, bool vsync) : windowed_size_{width, height} {
  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    throw WindowError(
        "surge view: cannot open the display; on a server use `surge run SCENE --render frames/`",
        kExitBadInput);
  }
  // 4.6 where the driver has it, else 4.5 (Mesa llvmpipe): the renderer needs 4.5 core.
  glfwSetErrorCallback(nullptr);  // a refused 4.6 request is expected; report only the final failure
  for (int minor : {6, 5}) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    window_ = glfwCreateWindow(width, height, "Surge", nullptr, nullptr);
    if (window_) break;
  }
  glfwSetErrorCallback(glfw_error);
  if (!window_) {
    glfwTerminate();
    throw WindowError(
        "surge view: this display has no OpenGL 4.5 core context; try `surge run SCENE --render frames/` "
        "(offscreen)",
        kExitRuntimeError);
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(vsync ? 1 : 0);
  if (!gladLoadGL(glfwGetProcAddress)) {
    glfwDestroyWindow(window_);
    glfwTerminate();
    throw WindowError("surge view: cannot load OpenGL functions", kExitRuntimeError);
  }
  std::cout << "OpenGL " << glGetString(GL_VERSION) << ", " << glGetString(GL_RENDERER) << '\n';

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini littered in the working directory
  ImGui::StyleColorsDark();
  // Key presses are queued here as GLFW delivers them, then read once per frame: ImGui 1.86 keeps only
  // whether a key is down at the start of a frame, so a tap shorter than one frame (common when a large
  // scene runs at a few frames per second) would be lost. Installed first, so ImGui's callback chains to it.
  glfwSetWindowUserPointer(window_, &key_presses_);
  glfwSetKeyCallback(window_, [](GLFWwindow* w, int key, int, int action, int) {
    if (action == GLFW_PRESS) static_cast<std::vector<int>*>(glfwGetWindowUserPointer(w))->push_back(key);
  });
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 450 core");
}

ViewerWindow::~ViewerWindow() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

void ViewerWindow::close() {
  glfwSetWindowShouldClose(window_, GLFW_TRUE);
}

bool ViewerWindow::pressed(int key) const {
  return std::find(key_presses_.begin(), key_presses_.end(), key) != key_presses_.end();
}

void ViewerWindow::toggle_fullscreen() {
  fullscreen_ = !fullscreen_;
  if (fullscreen_) {
    glfwGetWindowPos(window_, &windowed_position_[0], &windowed_position_[1]);
    glfwGetWindowSize(window_, &windowed_size_[0], &windowed_size_[1]);
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    if (mode) glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
  } else {
    glfwSetWindowMonitor(window_, nullptr, windowed_position_[0], windowed_position_[1], windowed_size_[0],
                         windowed_size_[1], 0);
  }
}

}  // namespace surge::app
