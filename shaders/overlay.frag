#version 450 core

in vec4 v_color;
in float v_map_position;

uniform sampler1D u_color_map;

out vec4 out_color;

void main() {
  if (v_map_position >= 0.0) {
    float size = float(textureSize(u_color_map, 0));
    out_color = vec4(texture(u_color_map, (clamp(v_map_position, 0.0, 1.0) * (size - 1.0) + 0.5) / size).rgb, 1.0);
  } else {
    out_color = v_color;
  }
}
