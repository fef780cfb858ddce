#version 450 core
// The water's colour per pixel, from the smoothed depth and the thickness (van der Laan, Green & Sainz 2009;
// Green, GDC 2010): normals from the depth's differences, Fresnel reflection of the sky (Schlick 1994),
// refraction of the scene behind by a screen offset, Beer-Lambert absorption by thickness and a Blinn-Phong
// highlight. Where there is no water, or the scene is nearer, the scene's own pixel and depth pass through.

in vec2 v_uv;

uniform sampler2D u_depth;         // smoothed [m] in front of the eye; 0: no fluid
uniform sampler2D u_thickness;     // [m] of water along the line of sight, at a lower resolution
uniform sampler2D u_scene_color;   // the scene without the water (sky, floor, tank)
uniform sampler2D u_scene_depth;   // its depth buffer, [0, 1]
uniform sampler2D u_environment;   // latitude-longitude sky (environment.frag)
uniform mat4 u_view;
uniform mat4 u_projection;
uniform vec2 u_viewport;           // [px]
uniform float u_pixels_per_m;      // at 1 m from the eye
uniform vec3 u_to_light_eye;       // unit, eye space
uniform vec3 u_absorption;         // per channel [1/m]
uniform vec3 u_scatter_color;      // what thick water tends to, lit from within
uniform float u_refraction;        // screen shift [m] per metre of water and unit surface tilt
uniform float u_specular;          // highlight strength

out vec4 out_color;

float fluid_depth(ivec2 pixel) {
  return texelFetch(u_depth, clamp(pixel, ivec2(0), ivec2(u_viewport) - 1), 0).r;
}

// The eye-space point at `depth` metres in front of the eye seen through the centre of `pixel`.
vec3 eye_position(ivec2 pixel, float depth) {
  vec2 ndc = (vec2(pixel) + 0.5) / u_viewport * 2.0 - 1.0;
  return vec3(ndc.x * depth / u_projection[0][0], ndc.y * depth / u_projection[1][1], -depth);
}

// The surface's step to the neighbour along `step`: of the two one-sided differences the one with the
// smaller change in depth, so a normal at the water's edge or where water passes in front of water does
// not lean across the gap (Green 2010).
vec3 surface_step(ivec2 pixel, vec3 here, ivec2 step) {
  float ahead = fluid_depth(pixel + step), behind = fluid_depth(pixel - step);
  vec3 forward = eye_position(pixel + step, ahead) - here;
  vec3 backward = here - eye_position(pixel - step, behind);
  if (ahead <= 0.0 && behind <= 0.0) return vec3(0.0);
  if (ahead <= 0.0) return backward;
  if (behind <= 0.0) return forward;
  return abs(forward.z) < abs(backward.z) ? forward : backward;
}

vec2 latitude_longitude(vec3 direction) {
  const float pi = 3.14159265;
  return vec2(atan(direction.y, direction.x) / (2.0 * pi) + 0.5, acos(clamp(direction.z, -1.0, 1.0)) / pi);
}

void main() {
  ivec2 pixel = ivec2(gl_FragCoord.xy);
  float depth = fluid_depth(pixel);
  float scene_depth = texelFetch(u_scene_depth, pixel, 0).r;
  vec3 scene = texelFetch(u_scene_color, pixel, 0).rgb;
  vec3 here = eye_position(pixel, depth);
  vec4 clip = u_projection * vec4(here, 1.0);
  float water_depth = 0.5 * clip.z / clip.w + 0.5;
  if (depth <= 0.0 || water_depth >= scene_depth) {
    out_color = vec4(scene, 1.0);
    gl_FragDepth = scene_depth;
    return;
  }
  vec3 dx = surface_step(pixel, here, ivec2(1, 0)), dy = surface_step(pixel, here, ivec2(0, 1));
  vec3 normal = cross(dx, dy);
  // A lone pixel of water has no neighbours to take a slope from: it faces the eye.
  normal = dot(normal, normal) > 0.0 ? normalize(normal) : vec3(0.0, 0.0, 1.0);
  vec3 to_eye = normalize(-here);
  float cos_view = max(dot(normal, to_eye), 0.0);

  // Schlick's approximation with F0 = ((1.33 - 1) / (1.33 + 1))^2 = 0.02 for water against air.
  float fresnel = 0.02 + 0.98 * pow(1.0 - cos_view, 5.0);
  vec3 reflected_eye = reflect(-to_eye, normal);
  vec3 reflected = texture(u_environment, latitude_longitude(transpose(mat3(u_view)) * reflected_eye)).rgb;

  // Refraction as a shift of the scene behind, growing with the water's thickness and the surface's tilt
  // (thin-lens approximation): a shift of s metres at this depth is s * u_pixels_per_m / depth pixels.
  // Brought up to this pixel from the thickness's lower resolution, bilinear.
  float thickness = texture(u_thickness, (vec2(pixel) + 0.5) / u_viewport).r;
  vec2 shift_px = normal.xy * (u_refraction * thickness * u_pixels_per_m / depth);
  vec3 behind = texture(u_scene_color, clamp((vec2(pixel) + 0.5 - shift_px) / u_viewport, 0.0, 1.0)).rgb;
  // Beer-Lambert: the light that crosses the water keeps exp(-absorption * thickness) of each channel; what
  // it loses, light scattered inside the water partly gives back, tinted.
  vec3 transmittance = exp(-u_absorption * thickness);
  vec3 transmitted = behind * transmittance + u_scatter_color * (1.0 - transmittance);

  // Blinn-Phong highlight of the light (from the same direction as the sky's sun).
  vec3 halfway = normalize(u_to_light_eye + to_eye);
  float highlight = u_specular * pow(max(dot(normal, halfway), 0.0), 160.0);

  out_color = vec4(mix(transmitted, reflected, fresnel) + vec3(highlight), 1.0);
  gl_FragDepth = water_depth;
}
