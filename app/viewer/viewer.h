// The `surge view` window: GLFW, OpenGL 4.5 core through glad, Dear ImGui panels.
#pragma once

#include "app/view_command.h"

namespace surge::app {

int run_viewer(const ViewOptions& options);

}  // namespace surge::app
