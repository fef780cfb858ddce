#version 450 core
// One direction of the depth smoothing: a bilateral filter (Tomasi & Manduchi 1998), as Green (GDC 2010)
// smooths screen-space fluid depth. The spatial Gaussian's radius is u_filter_radius particle radii,
// projected to pixels at this pixel's depth, so the bumps between particles go at any distance; the range
// Gaussian keeps water in front of other water (a difference of many particle radii) apart. Run along x
// then y, a few times: not exactly the 2-D bilateral filter, but close and far cheaper.

in vec2 v_uv;

uniform sampler2D u_depth;       // [m] in front of the eye; 0: no fluid
uniform ivec2 u_direction;       // (1, 0) or (0, 1)
uniform float u_radius;          // particle radius [m]
uniform float u_filter_radius;   // in particle radii
uniform float u_pixels_per_m;    // at 1 m from the eye: focal length * half the viewport height
uniform float u_range;           // [m]: sigma of the range Gaussian

out float out_depth;

const int kMaxRadiusPx = 32;  // caps the cost when the camera is very close

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
  float range = 1.0 / (2.0 * u_range * u_range);
  float sum = 0.0, weights = 0.0;
  for (int k = -reach; k <= reach; ++k) {
    float sample_depth = texelFetch(u_depth, clamp(pixel + k * u_direction, ivec2(0), last), 0).r;
    if (sample_depth <= 0.0) continue;  // off the fluid: no depth to average
    float difference = sample_depth - depth;
    float weight = exp(-float(k * k) * spatial - difference * difference * range);
    sum += weight * sample_depth;
    weights += weight;
  }
  out_depth = sum / weights;
}
