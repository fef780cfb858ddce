#version 450 core
// A body's glow: a Gaussian spot, added to what is already there (blending GL_ONE, GL_ONE), so where bodies
// crowd, as in a galaxy's core, their light adds up towards white.

in float v_map_position;
in float v_peak;

uniform sampler1D u_color_map;  // the colour map, sampled from t = 0 to t = 1
uniform int u_use_color_map;    // 0: u_fixed_color
uniform vec3 u_fixed_color;

out vec4 out_color;

void main() {
  vec2 disc = 2.0 * gl_PointCoord - 1.0;
  float r2 = dot(disc, disc);
  if (r2 > 1.0) discard;
  // exp(-4 r^2), shifted to reach zero at the sprite's rim so its square never shows.
  float falloff = (exp(-4.0 * r2) - exp(-4.0)) / (1.0 - exp(-4.0));
  vec3 base = u_fixed_color;
  if (u_use_color_map != 0) {
    float size = float(textureSize(u_color_map, 0));
    base = texture(u_color_map, (clamp(v_map_position, 0.0, 1.0) * (size - 1.0) + 0.5) / size).rgb;
  }
  out_color = vec4(base * (v_peak * falloff), 1.0);
}
