#version 450 core
// A sphere impostor: the point sprite's square becomes a shaded disc whose depth is that of the sphere's
// surface, so overlapping particles intersect as spheres would.

in vec3 v_center_eye;
in float v_map_position;
in float v_radius;  // [m]

uniform mat4 u_projection;
uniform sampler1D u_color_map;  // the colour map, sampled from t = 0 to t = 1
uniform int u_use_color_map;    // 0: u_fixed_color
uniform vec3 u_fixed_color;
uniform int u_lighting;  // 0: flat colour (tests read exact colours)
uniform float u_alpha;   // 1: opaque; the walls are drawn see-through (particle_renderer.cpp)

out vec4 out_color;

void main() {
  // gl_PointCoord runs from the top-left corner; eye-space y runs up.
  vec2 disc = vec2(2.0 * gl_PointCoord.x - 1.0, 1.0 - 2.0 * gl_PointCoord.y);
  float r2 = dot(disc, disc);
  if (r2 > 1.0) discard;
  vec3 normal = vec3(disc, sqrt(1.0 - r2));

  // Depth of the visible surface point (default depth range [0, 1]).
  vec4 surface_clip = u_projection * vec4(v_center_eye + v_radius * normal, 1.0);
  gl_FragDepth = 0.5 * surface_clip.z / surface_clip.w + 0.5;

  vec3 base = u_fixed_color;
  if (u_use_color_map != 0) {
    // Texel centres: t = 0 lands on the first texel's centre and t = 1 on the last one's.
    float size = float(textureSize(u_color_map, 0));
    float t = clamp(v_map_position, 0.0, 1.0);
    base = texture(u_color_map, (t * (size - 1.0) + 0.5) / size).rgb;
  }
  if (u_lighting == 0) {
    out_color = vec4(base, u_alpha);
    return;
  }
  // A light from over the viewer's left shoulder, Blinn-Phong highlight.
  const vec3 to_light = normalize(vec3(-0.4, 0.6, 1.0));
  float diffuse = max(dot(normal, to_light), 0.0);
  vec3 halfway = normalize(to_light + vec3(0.0, 0.0, 1.0));
  float highlight = 0.35 * pow(max(dot(normal, halfway), 0.0), 48.0);
  out_color = vec4(base * (0.35 + 0.65 * diffuse) + vec3(highlight), u_alpha);
}
