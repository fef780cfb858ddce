#version 450 core
// One direction of the depth smoothing by the narrow-range filter (Truong & Yuksel, "A Narrow-Range Filter
// for Screen-Space Fluid Rendering", I3D 2018): a spatial Gaussian, as in the bilateral filter
// (fluid_smooth.frag, same radius), but with hard depth limits instead of a range Gaussian:
//   - a sample nearer than this pixel by more than the threshold is another surface in front: it is left
//     out, and so is its mirror sample on the other side, so the filter stays symmetric and the surface
//     does not slide towards the gap;
//   - a sample farther by more than the threshold, or off the fluid, is taken as lying one particle radius
//     behind this pixel (clamped), so the water's silhouette rounds off instead of ending in a flat rim;
//   - a sample within the range widens it around itself (range extension), so a surface seen at a grazing
//     angle, whose depth changes fast across the screen, is still smoothed as one surface.
// Run along x then y, a few times, like the bilateral filter. The clamp is taken from the pixel's unsmoothed
// depth (u_raw_depth): from its depth as it stands after the previous passes, it compounded, each pass
// lifting the silhouette by up to a radius more, and the lift spread inwards (2.5 particle radii at the
// centre of a ball of seven, over three passes).

in vec2 v_uv;

uniform sampler2D u_depth;       // [m] in front of the eye; 0: no fluid
uniform sampler2D u_raw_depth;   // the same before any pass
uniform ivec2 u_direction;       // (1, 0) or (0, 1)
uniform float u_radius;          // particle radius [m]
uniform float u_filter_radius;   // in particle radii
uniform float u_pixels_per_m;    // at 1 m from the eye: focal length * half the viewport height
uniform float u_threshold;       // [m]: the narrow range either side of this pixel's depth
uniform float u_clamp;           // [m]: how far behind this pixel a sample beyond the range is taken to be

out float out_depth;

const int kMaxRadiusPx = 32;  // caps the cost when the camera is very close

// One sample against the running limits: returns false when it is in front and left out; else `depth` is the
// value to average (clamped when behind) and the limits grow around a sample within them.
bool take(inout float depth, inout float near_limit, inout float far_limit, float clamped) {
  if (depth > 0.0 && depth < near_limit) return false;
  if (depth <= 0.0 || depth > far_limit) {
    depth = clamped;
  } else {
    near_limit = min(near_limit, depth - u_threshold);
    far_limit = max(far_limit, depth + u_threshold);
  }
  return true;
}

void main() {
  ivec2 pixel = ivec2(gl_FragCoord.xy);
  ivec2 last = textureSize(u_depth, 0) - 1;
  float depth = texelFetch(u_depth, pixel, 0).r;
  out_depth = depth;
  if (depth <= 0.0) return;
  float radius_px = min(u_filter_radius * u_radius * u_pixels_per_m / depth, float(kMaxRadiusPx));
  if (radius_px < 1.0) return;
  int reach = int(ceil(radius_px));
  float spatial = 1.0 / (2.0 * (0.5 * radius_px) * (0.5 * radius_px));
  float clamped = max(texelFetch(u_raw_depth, pixel, 0).r, depth) + u_clamp;
  // Each side keeps its own limits, widened outwards from this pixel.
  float near_ahead = depth - u_threshold, far_ahead = depth + u_threshold;
  float near_behind = near_ahead, far_behind = far_ahead;
  float sum = depth, weights = 1.0;
  for (int k = 1; k <= reach; ++k) {
    float ahead = texelFetch(u_depth, clamp(pixel + k * u_direction, ivec2(0), last), 0).r;
    float behind = texelFetch(u_depth, clamp(pixel - k * u_direction, ivec2(0), last), 0).r;
    bool take_ahead = take(ahead, near_ahead, far_ahead, clamped);
    bool take_behind = take(behind, near_behind, far_behind, clamped);
    if (!take_ahead || !take_behind) continue;  // one left out: its mirror too
    float weight = exp(-float(k * k) * spatial);
    sum += weight * (ahead + behind);
    weights += 2.0 * weight;
  }
  out_depth = sum / weights;
}
