#version 450 core
// One colour and opacity: the tank's glass panes and its edges.

uniform vec4 u_color;

out vec4 out_color;

void main() {
  out_color = u_color;
}
