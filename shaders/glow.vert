#version 450 core
// Bodies in the glow style: a point sprite per body whose size and light follow its mass, so a galaxy's
// light is where its mass is. A body of the reference mass (the mean) is a sprite of radius u_radius; a
// heavier one is larger (radius as the cube root of the mass, as a ball of the same density) and gives
// light in proportion to its mass.

layout(location = 0) in vec4 in_position;  // xyz: centre [m]; w: mass (n-body), or 0
layout(location = 1) in float in_scalar;   // the quantity bodies are coloured by

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_radius;           // [m] of a body of the reference mass
uniform float u_reference_mass;   // 0: every body alike
uniform float u_viewport_height;  // [px]
uniform vec2 u_scalar_range;      // values that map to the colour map's ends
uniform float u_peak;             // a reference body's light at its centre

out float v_map_position;
out float v_peak;

const float kSmallestPx = 2.0;  // a sprite smaller than this would flicker between pixels

void main() {
  vec4 center_eye = u_view * vec4(in_position.xyz, 1.0);
  gl_Position = u_projection * center_eye;
  float mass_share = u_reference_mass > 0.0 && in_position.w > 0.0 ? in_position.w / u_reference_mass : 1.0;
  float size_px = 2.0 * u_radius * pow(mass_share, 1.0 / 3.0) * u_projection[1][1] * 0.5 * u_viewport_height /
                  gl_Position.w;
  float reference_px = max(2.0 * u_radius * u_projection[1][1] * 0.5 * u_viewport_height / gl_Position.w,
                           kSmallestPx);
  gl_PointSize = max(size_px, kSmallestPx);
  // Light in proportion to mass: the peak scales with the mass over the sprite's area.
  v_peak = u_peak * mass_share * (reference_px * reference_px) / (gl_PointSize * gl_PointSize);
  v_map_position = (in_scalar - u_scalar_range.x) / (u_scalar_range.y - u_scalar_range.x);
}
