#version 450 core
// The fluid's particles in the surface style's passes (fluid_surface.cpp): point sprites that cover each
// sphere, as in particle_sphere.vert, and the spray test that sorts them.
//
// Spray is decided on screen, as the renderer is given positions only (no neighbour counts): a particle is
// spray when the water along the line of sight through its centre (the thickness pass) is less than
// u_spray_thickness, i.e. hardly any other particle lies in front of or behind it, and so it is along eight
// lines of sight three particle radii around it, i.e. no water beside it either (without this ring, every
// particle on the bulk's silhouette, seen grazing, read as spray). A drop in front of the bulk thus counts as
// surface; that is the price of not knowing neighbours.

layout(location = 0) in vec4 in_position;  // xyz: centre [m]

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_radius;     // [m]
uniform vec2 u_viewport;    // [px]
uniform int u_select;       // 0: every particle; 1: the surface's only (not spray); 2: spray only
uniform sampler2D u_thickness;    // [m] of water per pixel, from the thickness pass
uniform float u_spray_thickness;  // [m]
uniform float u_spray_size;       // spray point diameter as a fraction of the particle's

out vec3 v_center_eye;  // sphere centre in eye space
out float v_radius;     // [m]

void main() {
  vec4 center_eye = u_view * vec4(in_position.xyz, 1.0);
  v_center_eye = center_eye.xyz;
  v_radius = u_radius;
  gl_Position = u_projection * center_eye;
  // The sphere's projected diameter in px: 2r * (focal length / distance) * half the viewport height.
  gl_PointSize = u_radius * u_projection[1][1] * u_viewport.y / gl_Position.w;
  if (u_select == 0 || gl_Position.w <= 0.0) return;
  vec2 pixel = (gl_Position.xy / gl_Position.w * 0.5 + 0.5) * u_viewport;
  ivec2 last = ivec2(u_viewport) - 1;
  float most = texelFetch(u_thickness, clamp(ivec2(pixel), ivec2(0), last), 0).r;
  float ring_px = 1.5 * gl_PointSize;  // three radii: beyond the particle's own disc
  for (int k = 0; k < 8; ++k) {
    float angle = 0.785398 * float(k);
    ivec2 texel = clamp(ivec2(pixel + ring_px * vec2(cos(angle), sin(angle))), ivec2(0), last);
    most = max(most, texelFetch(u_thickness, texel, 0).r);
  }
  bool spray = most < u_spray_thickness;
  if (spray != (u_select == 2)) {
    // Not in this pass: a point whose centre lies outside the clip volume is not drawn.
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    gl_PointSize = 1.0;
    return;
  }
  if (u_select == 2) gl_PointSize = max(2.0, u_spray_size * gl_PointSize);
}
