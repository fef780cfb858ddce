#version 450 core
// Shadow pass: each particle's sphere seen from the light (an orthographic camera, fluid_surface.cpp),
// depth only, so the floor can tell whether water lies between it and the light.

in vec3 v_center_eye;
in float v_radius;  // [m]
flat in vec2 v_window;  // [px] the sprite's centre
flat in float v_size;   // [px] the sprite's side

uniform mat4 u_projection;

// At or behind the point's own depth, the sphere's nearest point (fluid_particle.vert): early depth tests
// stay on.
layout(depth_greater) out float gl_FragDepth;

void main() {
  // The pixel's place on the disc, from the sprite's exact centre and size (fluid_particle.vert says why).
  vec2 disc = 2.0 * (gl_FragCoord.xy - v_window) / v_size;
  float r2 = dot(disc, disc);
  if (r2 > 1.0) discard;
  vec3 surface = v_center_eye + v_radius * vec3(disc, sqrt(1.0 - r2));
  vec4 clip = u_projection * vec4(surface, 1.0);
  gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
}
