#version 450 core
// Thickness pass: each sphere adds the length of the line of sight through it (its chord), blended
// additively (van der Laan, Green & Sainz 2009, section 3.3). Spheres of radius half the spacing fill only
// pi/6 of the volume the particles stand for, so the sum is scaled by u_fill_correction = 6/pi to read as
// metres of water.

in vec3 v_center_eye;
in float v_radius;  // [m]
flat in vec2 v_window;  // [px] the sprite's centre
flat in float v_size;   // [px] the sprite's side
in float v_area_share;  // below 1 for a sphere drawn larger than it projects (fluid_particle.vert)

uniform float u_fill_correction;

out float out_thickness;  // [m]

void main() {
  // The pixel's place on the disc, from the sprite's exact centre and size (fluid_particle.vert says why).
  vec2 disc = 2.0 * (gl_FragCoord.xy - v_window) / v_size;
  float r2 = dot(disc, disc);
  if (r2 > 1.0) discard;
  out_thickness = u_fill_correction * 2.0 * v_radius * sqrt(1.0 - r2) * v_area_share;
}
