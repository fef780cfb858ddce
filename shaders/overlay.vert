#version 450 core
// 2-D overlay in pixels (origin top-left): the colour bar and its labels.

layout(location = 0) in vec2 in_pixel;
layout(location = 1) in vec4 in_color;
layout(location = 2) in float in_map_position;  // >= 0: take the colour from the colour map

uniform vec2 u_viewport;  // [px]

out vec4 v_color;
out float v_map_position;

void main() {
  gl_Position = vec4(2.0 * in_pixel.x / u_viewport.x - 1.0, 1.0 - 2.0 * in_pixel.y / u_viewport.y, 0.0, 1.0);
  v_color = in_color;
  v_map_position = in_map_position;
}
