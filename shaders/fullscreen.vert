#version 450 core
// One triangle that covers the viewport (no vertex buffer: drawn as 3 vertices), for the passes that work
// per pixel: the sky, the depth smoothing and the fluid's composite (fluid_surface.cpp).

out vec2 v_uv;  // [0, 1] across the viewport

void main() {
  vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  v_uv = corner;
  gl_Position = vec4(2.0 * corner - 1.0, 0.0, 1.0);
}
