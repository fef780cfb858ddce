#version 450 core
// Spray and foam: a small bright round point per isolated particle (Green 2010), soft at its rim, blended
// over the surface and the scene.

uniform vec3 u_color;

out vec4 out_color;

void main() {
  vec2 disc = 2.0 * gl_PointCoord - 1.0;
  float r2 = dot(disc, disc);
  if (r2 > 1.0) discard;
  out_color = vec4(u_color, 1.0 - r2 * r2);
}
