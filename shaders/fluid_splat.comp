#version 450 core
// Splatting: the surface style's per-particle passes (fluid_surface.cpp, particle_passes = "compute") done
// by a compute shader instead of point sprites. An invocation takes a particle, finds the pixels that its
// point sprite would cover (the same size, the same pixel centres, the same disc as fluid_particle.vert and
// the fragment shaders give) and writes each with an image atomic:
//   u_pass 0  shadow map: the sphere's depth seen from the light, [0, 1], by atomic minimum
//             (fluid_shadow.frag)
//   u_pass 1  thickness: the sphere's chord, in fixed point, by atomic add, where its centre lies in front
//             of the scene (fluid_thickness.frag)
//   u_pass 2  depth: the sphere's distance in front of the eye [m], by atomic minimum (fluid_depth.frag);
//             spray is left out, and listed for the spray's own pass
// Non-negative floats order as their bits read as unsigned integers do, so the minimum of the bits is the
// bits of the minimum. fluid_splat_resolve.comp turns the integers into the float images the later passes
// read.
//
// A particle whose sprite is wider than u_max_own_px (near the camera) is not done by its own invocation:
// one invocation would loop over its many pixels while the rest of its warp waited. It is listed instead,
// and a second dispatch (u_cooperative = 1) gives each listed particle a whole work group, whose
// invocations share its pixels.

layout(local_size_x = 128) in;

layout(std430, binding = 0) readonly buffer Positions {
  vec4 positions[];  // xyz: centre [m]
};
// The wide particles: glDispatchComputeIndirect reads the first three words.
layout(std430, binding = 1) buffer WideParticles {
  uint wide_groups_x, wide_groups_y, wide_groups_z;
  uint wide_count;
  uint wide[];
};
// The spray's particles: glDrawElementsIndirect reads the first five words, and the indices from word 8.
layout(std430, binding = 2) buffer SprayParticles {
  uint spray_count, spray_instances, spray_first, spray_base_vertex, spray_base_instance;
  uint spray_padding[3];
  uint spray[];
};

layout(r32ui, binding = 0) uniform uimage2D u_target;

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_radius;          // [m]
uniform vec2 u_viewport;         // [px] of u_target
uniform int u_pass;              // 0 shadow map, 1 thickness, 2 depth (above)
uniform uint u_count;            // particles
uniform int u_cooperative;       // 0: one invocation a particle; 1: one work group a listed wide particle
uniform float u_max_own_px;      // sprites wider than this are listed for the cooperative dispatch
uniform float u_units_per_chord; // pass 1: fixed-point units of a whole sphere's chord through its centre
uniform sampler2D u_scene_depth; // pass 1: the scene's depth at u_target's resolution, [0, 1]
uniform int u_spray;             // pass 2: 1 to leave spray out (and list it)
uniform sampler2D u_thickness;   // pass 2: [m], from the thickness pass, at its own resolution
uniform float u_spray_thickness; // pass 2: [m]

const uint kMaxGroups = 65535u;  // GL's least guaranteed work group count along x

struct Sprite {
  vec3 center_eye;
  vec2 window;       // [px] centre in u_target
  float size;        // [px] side of the point sprite
  float area_share;  // the sphere's projected area over the sprite's (below 1 only for spheres under a pixel)
  float depth;       // window depth of the point, [0, 1] (pass 1 tests it against the scene's)
};

// The spray test of fluid_particle.vert, the same lines of sight through the same thickness: the two must
// agree, so that both paths draw the same particles as spray.
bool is_spray(vec4 clip, float size) {
  vec2 thickness_size = vec2(textureSize(u_thickness, 0));
  vec2 pixel = (clip.xy / clip.w * 0.5 + 0.5) * thickness_size;
  ivec2 last = ivec2(thickness_size) - 1;
  float most = texelFetch(u_thickness, clamp(ivec2(pixel), ivec2(0), last), 0).r;
  float ring_px = 1.5 * size * thickness_size.y / u_viewport.y;
  for (int k = 0; k < 8; ++k) {
    float angle = 0.785398 * float(k);
    ivec2 texel = clamp(ivec2(pixel + ring_px * vec2(cos(angle), sin(angle))), ivec2(0), last);
    most = max(most, texelFetch(u_thickness, texel, 0).r);
  }
  return most < u_spray_thickness;
}

// Particle `id`'s point sprite as fluid_particle.vert makes it, and its clip-space centre. The depth
// and shadow passes put the point at the sphere's nearest point, as u_at_front does there.
Sprite sprite_of(uint id, out vec4 clip, out float point_z) {
  Sprite s;
  vec4 center_eye = u_view * vec4(positions[id].xyz, 1.0);
  s.center_eye = center_eye.xyz;
  clip = u_projection * center_eye;
  float diameter_px = u_radius * u_projection[1][1] * u_viewport.y / clip.w;
  s.size = max(diameter_px, 1.0);
  s.area_share = diameter_px > 0.0 ? diameter_px * diameter_px / (s.size * s.size) : 1.0;
  point_z = clip.z;
  if (u_pass != 1) {
    vec4 front = u_projection * vec4(center_eye.xy, center_eye.z + u_radius, 1.0);
    point_z = max(front.z / front.w, -1.0) * clip.w;
  }
  s.window = (clip.xy / clip.w * 0.5 + 0.5) * u_viewport;
  s.depth = 0.5 * point_z / clip.w + 0.5;
  return s;
}

// Whether a point with this clip-space centre is drawn at all: a point whose vertex lies outside the clip
// volume is discarded whole (GL 4.5 core, section 13.5).
bool inside(vec4 clip, float point_z) {
  return clip.w > 0.0 && all(lessThanEqual(abs(clip.xy), vec2(clip.w))) && abs(point_z) <= clip.w;
}

// The sprite's pixels: those whose centres lie within its square, clipped to the target.
ivec4 pixel_box(Sprite s) {
  ivec2 first = max(ivec2(ceil(s.window - 0.5 * s.size - 0.5)), ivec2(0));
  ivec2 last = min(ivec2(floor(s.window + 0.5 * s.size - 0.5)), ivec2(u_viewport) - 1);
  return ivec4(first, last);
}

void write_pixel(Sprite s, ivec2 pixel) {
  // gl_PointCoord's disc: (2 s - 1, 1 - 2 t) from the sprite's centre to the pixel's.
  vec2 disc = 2.0 * (vec2(pixel) + 0.5 - s.window) / s.size;
  float r2 = dot(disc, disc);
  if (r2 > 1.0) return;
  if (u_pass == 1) {
    // As the depth test against the scene's depth (GL_LESS), at the point's own (the centre's) depth.
    if (!(s.depth < texelFetch(u_scene_depth, pixel, 0).r)) return;
    imageAtomicAdd(u_target, pixel, uint(u_units_per_chord * sqrt(1.0 - r2) * s.area_share + 0.5));
    return;
  }
  vec3 surface = s.center_eye + u_radius * vec3(disc, sqrt(1.0 - r2));
  float value;
  if (u_pass == 0) {
    vec4 surface_clip = u_projection * vec4(surface, 1.0);
    value = clamp(0.5 * surface_clip.z / surface_clip.w + 0.5, 0.0, 1.0);
  } else {
    value = max(-surface.z, 0.0);
  }
  // The sign bit cleared: a -0.0 would otherwise read as the largest depth.
  uint bits = floatBitsToUint(value) & 0x7fffffffu;
  // Something nearer there already (a stale read only costs the atomic it would have saved).
  if (imageLoad(u_target, pixel).r <= bits) return;
  imageAtomicMin(u_target, pixel, bits);
}

void splat_own(uint id) {
  vec4 clip;
  float point_z;
  Sprite s = sprite_of(id, clip, point_z);
  if (clip.w <= 0.0) return;
  if (u_pass == 2 && u_spray != 0 && is_spray(clip, s.size)) {
    // For the spray pass, which draws the point with its centre's depth.
    if (inside(clip, clip.z)) spray[atomicAdd(spray_count, 1u)] = id;
    return;
  }
  if (!inside(clip, point_z)) return;
  if (s.size > u_max_own_px) {
    uint slot = atomicAdd(wide_count, 1u);
    wide[slot] = id;
    atomicMax(wide_groups_x, min(slot + 1u, kMaxGroups));
    return;
  }
  ivec4 box = pixel_box(s);
  for (int y = box.y; y <= box.w; ++y)
    for (int x = box.x; x <= box.z; ++x) write_pixel(s, ivec2(x, y));
}

void splat_shared(uint id) {
  vec4 clip;
  float point_z;
  Sprite s = sprite_of(id, clip, point_z);
  ivec4 box = pixel_box(s);
  if (box.z < box.x || box.w < box.y) return;  // off the target
  int width = box.z - box.x + 1;
  int pixels = width * (box.w - box.y + 1);
  for (int k = int(gl_LocalInvocationID.x); k < pixels; k += int(gl_WorkGroupSize.x))
    write_pixel(s, box.xy + ivec2(k % width, k / width));
}

void main() {
  if (u_cooperative == 0) {
    // Strided, as the work group count along x may be capped below count / 128.
    for (uint id = gl_GlobalInvocationID.x; id < u_count; id += gl_NumWorkGroups.x * gl_WorkGroupSize.x)
      splat_own(id);
  } else {
    for (uint k = gl_WorkGroupID.x; k < wide_count; k += gl_NumWorkGroups.x) splat_shared(wide[k]);
  }
}
