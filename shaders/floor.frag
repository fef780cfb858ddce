#version 450 core
// The floor under the tank: a light plane with grid lines every u_spacing metres, lit from above, that
// fades into the sky far away so its edge never shows; where water or a solid lies between it and the light,
// in soft shadow: a partial one under water, which is clear, and a full one under a solid, which is opaque.
//
// Soft shadows by percentage-closer filtering over Poisson-disc taps of a shadow map (Reeves, Salesin & Cook
// 1987), its radius from the light's size and the blockers' height above the floor, as in percentage-closer
// soft shadows (Fernando 2005): a search for blockers first, then a penumbra of height x the light's angular
// radius either side of the edge, so the shadow of a high sheet of water or a high solid is softer than a
// pool's. The water and the solids each have their own map, so water above a solid does not make the
// solid's shadow partial.

in vec3 v_world;

uniform float u_spacing;          // [m] between grid lines
uniform vec3 u_to_light;          // world space, unit
uniform vec3 u_eye;               // world space [m]
uniform vec2 u_center;            // of the floor [m]
uniform float u_fade_radius;      // [m] from the centre where the floor has become sky
uniform sampler2D u_environment;  // latitude-longitude (environment.frag)
uniform sampler2D u_water_shadow_map;  // depth of the particles seen from the light, [0, 1]
uniform sampler2D u_solid_shadow_map;  // depth of the solids seen from the light, [0, 1]
uniform mat4 u_shadow_from_world; // world point -> (u, v, depth) of both shadow maps, each in [0, 1]
uniform int u_water_shadows;      // 0: no water shadow map this frame (no fluid, or shadows off)
uniform int u_solid_shadows;      // 0: no solid shadow map this frame (no solids, or shadows off)
uniform float u_water_shadow_strength;  // share of the light the water takes away
uniform float u_shadow_depth_m;   // [m] of shadow-map depth from 0 to 1
uniform float u_shadow_width_m;   // [m] across the shadow maps
uniform float u_light_angular_radius;  // [rad]
uniform float u_min_penumbra_m;   // [m]

out vec4 out_color;

vec2 latitude_longitude(vec3 direction) {
  const float pi = 3.14159265;
  return vec2(atan(direction.y, direction.x) / (2.0 * pi) + 0.5, acos(clamp(direction.z, -1.0, 1.0)) / pi);
}

// A Poisson disc of 16 taps in the unit circle.
const vec2 kTaps[16] = vec2[](
    vec2(-0.942, -0.399), vec2(0.946, -0.769), vec2(-0.094, -0.929), vec2(0.345, 0.294),
    vec2(-0.916, 0.458), vec2(-0.815, -0.879), vec2(-0.383, 0.277), vec2(0.975, 0.756),
    vec2(0.443, -0.975), vec2(0.537, -0.474), vec2(-0.265, -0.419), vec2(0.792, 0.191),
    vec2(-0.242, 0.997), vec2(-0.814, 0.914), vec2(0.200, 0.786), vec2(0.144, -0.141));

// The share of this point's view of the light that what `shadow_map` holds covers, 0..1.
float covered(sampler2D shadow_map) {
  vec3 texel = (u_shadow_from_world * vec4(v_world, 1.0)).xyz;
  // Beyond the map (it spans the box's bounding sphere, and the particles and solids stay in the box):
  // nothing there casts a shadow.
  if (any(lessThan(texel, vec3(0.0))) || any(greaterThan(texel, vec3(1.0)))) return 0.0;
  float bias = 0.33 * u_min_penumbra_m / u_shadow_depth_m;  // half a particle radius
  // Blockers: their mean height above this point, along the light, within the widest penumbra.
  float search = (u_min_penumbra_m + 0.5 * u_shadow_depth_m * u_light_angular_radius) / u_shadow_width_m;
  float blocker_sum = 0.0;
  int blockers = 0;
  for (int k = 0; k < 16; ++k) {
    float depth = texture(shadow_map, texel.xy + search * kTaps[k]).r;
    if (depth < texel.z - bias) blocker_sum += depth, ++blockers;
  }
  if (blockers == 0) return 0.0;
  float height_m = (texel.z - blocker_sum / float(blockers)) * u_shadow_depth_m;
  float penumbra = (u_min_penumbra_m + height_m * u_light_angular_radius) / u_shadow_width_m;
  // Percentage-closer filtering over the penumbra, the disc turned per pixel so the taps' pattern does not show.
  float angle = 6.2831853 * fract(sin(dot(gl_FragCoord.xy, vec2(12.9898, 78.233))) * 43758.5453);
  mat2 turn = mat2(cos(angle), sin(angle), -sin(angle), cos(angle));
  float blocked = 0.0;
  for (int k = 0; k < 16; ++k) {
    float depth = texture(shadow_map, texel.xy + penumbra * (turn * kTaps[k])).r;
    blocked += depth < texel.z - bias ? 1.0 : 0.0;
  }
  return blocked / 16.0;
}

void main() {
  vec2 cell = v_world.xy / u_spacing;
  // Distance to the nearest line in pixels (fwidth: grid units per pixel), so lines stay about 1.5 px wide
  // and anti-aliased at any distance.
  vec2 to_line = abs(fract(cell - 0.5) - 0.5) / max(fwidth(cell), vec2(1e-6));
  float line = 1.0 - clamp(min(to_line.x, to_line.y) / 1.5, 0.0, 1.0);
  vec3 color = mix(vec3(0.74, 0.75, 0.77), vec3(0.36, 0.38, 0.42), line);
  // Ambient from the sky plus direct light from the sun, of which the water's shadow takes a share and a
  // solid's shadow takes all.
  float water = u_water_shadows == 0 ? 0.0 : u_water_shadow_strength * covered(u_water_shadow_map);
  float solid = u_solid_shadows == 0 ? 0.0 : covered(u_solid_shadow_map);
  color *= 0.45 + 0.55 * max(u_to_light.z, 0.0) * (1.0 - water) * (1.0 - solid);
  vec3 view_direction = normalize(v_world - u_eye);
  vec3 sky = texture(u_environment, latitude_longitude(view_direction)).rgb;
  float fade = smoothstep(0.5 * u_fade_radius, u_fade_radius, length(v_world.xy - u_center));
  out_color = vec4(mix(color, sky, fade), 1.0);
}
