#version 450 core
// The fluid's particles in the surface style's passes (fluid_surface.cpp): point sprites that cover each
// sphere, as in particle_sphere.vert, and the spray test that sorts them.
//
// Spray is decided on screen, as the renderer is given positions only (no neighbour counts): a particle is
// spray when the water along the line of sight through its centre (the thickness pass) is less than
// u_spray_thickness, i.e. hardly any other particle lies in front of or behind it, and so it is along eight
// lines of sight three particle radii around it, i.e. no water beside it either (without this ring, every
// particle on the bulk's silhouette, seen grazing, read as spray). A drop in front of the bulk thus counts as
// surface; that is the price of not knowing neighbours. fluid_splat.comp makes the same test.

layout(location = 0) in vec4 in_position;  // xyz: centre [m]

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_radius;     // [m]
uniform vec2 u_viewport;    // [px] of the target this pass draws into
uniform int u_select;       // 0: every particle; 1: the surface's only (not spray); 2: spray only; 3: spray
                            // only, already sorted out (the particles fluid_splat.comp listed)
uniform sampler2D u_thickness;    // [m] of water per pixel, from the thickness pass (at its own resolution)
uniform float u_spray_thickness;  // [m]
uniform float u_spray_size;       // spray point diameter as a fraction of the particle's
uniform int u_at_front;           // 1: the point at the sphere's nearest point (depth and shadow passes)

out vec3 v_center_eye;  // sphere centre in eye space
out float v_radius;     // [m]
out float v_area_share; // the sphere's projected area over the point's (below 1 only for spheres under a pixel)
// The sprite as the fragment shaders measure it: its centre in window coordinates [px] and its side [px].
// They find each pixel's place on the sphere's disc from gl_FragCoord and these, not from gl_PointCoord:
// GL leaves a point's size granularity and its centre's snapping to the implementation, and NVIDIA's
// rasteriser and Mesa's placed gl_PointCoord apart by enough to move a 3 px sprite's chords by percents.
// So the point is drawn kPointMargin px wider than the sprite, and the disc test alone decides coverage:
// the pixels and values are then those fluid_splat.comp computes, on any rasteriser.
flat out vec2 v_window;
flat out float v_size;

const float kPointMargin = 2.0;  // covers a centre snapped to the pixel grid (0.5 px) and a size rounded down

void main() {
  vec4 center_eye = u_view * vec4(in_position.xyz, 1.0);
  v_center_eye = center_eye.xyz;
  v_radius = u_radius;
  gl_Position = u_projection * center_eye;
  // The sphere's projected diameter in px: 2r * (focal length / distance) * half the viewport height.
  float diameter_px = u_radius * u_projection[1][1] * u_viewport.y / gl_Position.w;
  // A point covers at least a pixel. A sphere smaller than that (far away, or in the thickness's coarser
  // target) is drawn a pixel wide, its chords scaled by the ratio of the areas: it adds the water it holds
  // and no more (fluid_thickness.frag).
  v_size = max(diameter_px, 1.0);
  v_area_share = diameter_px > 0.0 ? diameter_px * diameter_px / (v_size * v_size) : 1.0;
  v_window = (gl_Position.xy / gl_Position.w * 0.5 + 0.5) * u_viewport;
  gl_PointSize = v_size + kPointMargin;
  if (u_at_front != 0) {
    // The point's depth is that of the sphere's nearest point (not its centre's), so every depth its
    // fragments write is at or behind it: the fragment shaders declare so (layout(depth_greater)), and
    // the GPU can then reject a hidden fragment by depth before shading it, although the shader writes
    // gl_FragDepth. Its x and y stay the centre's.
    vec4 front = u_projection * vec4(center_eye.xy, center_eye.z + u_radius, 1.0);
    gl_Position.z = max(front.z / front.w, -1.0) * gl_Position.w;
  }
  if (any(greaterThan(abs(gl_Position.xy), vec2(gl_Position.w)))) {
    // GL discards a point whose centre lies outside the clip volume (GL 4.5 core, section 13.5), as Mesa
    // does; NVIDIA's rasteriser draws the part in view of a wide one whose centre is off the frame's side.
    // Beyond the far plane every rasteriser discards it whole, as fluid_splat.comp does.
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return;
  }
  if (u_select == 0 || gl_Position.w <= 0.0) return;
  if (u_select == 3) {
    gl_PointSize = max(2.0, u_spray_size * v_size);
    return;
  }
  vec2 thickness_size = vec2(textureSize(u_thickness, 0));
  vec2 pixel = (gl_Position.xy / gl_Position.w * 0.5 + 0.5) * thickness_size;
  ivec2 last = ivec2(thickness_size) - 1;
  float most = texelFetch(u_thickness, clamp(ivec2(pixel), ivec2(0), last), 0).r;
  // Three radii (beyond the particle's own disc), in the thickness's pixels.
  float ring_px = 1.5 * v_size * thickness_size.y / u_viewport.y;
  for (int k = 0; k < 8; ++k) {
    float angle = 0.785398 * float(k);
    ivec2 texel = clamp(ivec2(pixel + ring_px * vec2(cos(angle), sin(angle))), ivec2(0), last);
    most = max(most, texelFetch(u_thickness, texel, 0).r);
  }
  bool spray = most < u_spray_thickness;
  if (spray != (u_select == 2)) {
    // Not in this pass: a point whose centre lies outside the clip volume is not drawn.
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    gl_PointSize = 1.0;
    return;
  }
  if (u_select == 2) gl_PointSize = max(2.0, u_spray_size * v_size);
}
