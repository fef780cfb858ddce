#version 450 core
// The floor under the tank: a light plane with grid lines every u_spacing metres, lit from above, that
// fades into the sky far away so its edge never shows.

in vec3 v_world;

uniform float u_spacing;          // [m] between grid lines
uniform vec3 u_to_light;          // world space, unit
uniform vec3 u_eye;               // world space [m]
uniform vec2 u_center;            // of the floor [m]
uniform float u_fade_radius;      // [m] from the centre where the floor has become sky
uniform sampler2D u_environment;  // latitude-longitude (environment.frag)

out vec4 out_color;

vec2 latitude_longitude(vec3 direction) {
  const float pi = 3.14159265;
  return vec2(atan(direction.y, direction.x) / (2.0 * pi) + 0.5, acos(clamp(direction.z, -1.0, 1.0)) / pi);
}

void main() {
  vec2 cell = v_world.xy / u_spacing;
  // Distance to the nearest line in pixels (fwidth: grid units per pixel), so lines stay about 1.5 px wide
  // and anti-aliased at any distance.
  vec2 to_line = abs(fract(cell - 0.5) - 0.5) / max(fwidth(cell), vec2(1e-6));
  float line = 1.0 - clamp(min(to_line.x, to_line.y) / 1.5, 0.0, 1.0);
  vec3 color = mix(vec3(0.74, 0.75, 0.77), vec3(0.36, 0.38, 0.42), line);
  color *= 0.6 + 0.4 * max(u_to_light.z, 0.0);
  vec3 view_direction = normalize(v_world - u_eye);
  vec3 sky = texture(u_environment, latitude_longitude(view_direction)).rgb;
  float fade = smoothstep(0.5 * u_fade_radius, u_fade_radius, length(v_world.xy - u_center));
  out_color = vec4(mix(color, sky, fade), 1.0);
}
