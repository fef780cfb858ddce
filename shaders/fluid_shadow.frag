#version 450 core
// Shadow pass: each particle's sphere seen from the light (an orthographic camera, fluid_surface.cpp),
// depth only, so the floor can tell whether water lies between it and the light.

in vec3 v_center_eye;
in float v_radius;  // [m]

uniform mat4 u_projection;

// At or behind the point's own depth, the sphere's nearest point (fluid_particle.vert): early depth tests
// stay on.
layout(depth_greater) out float gl_FragDepth;

void main() {
  vec2 disc = vec2(2.0 * gl_PointCoord.x - 1.0, 1.0 - 2.0 * gl_PointCoord.y);
  float r2 = dot(disc, disc);
  if (r2 > 1.0) discard;
  vec3 surface = v_center_eye + v_radius * vec3(disc, sqrt(1.0 - r2));
  vec4 clip = u_projection * vec4(surface, 1.0);
  gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
}
