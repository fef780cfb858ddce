#version 450 core
// World-space geometry of the scene around the fluid: the floor and the glass tank (fluid_surface.cpp).

layout(location = 0) in vec3 in_position;  // [m]

uniform mat4 u_view;
uniform mat4 u_projection;

out vec3 v_world;

void main() {
  v_world = in_position;
  gl_Position = u_projection * u_view * vec4(in_position, 1.0);
}
