#version 450 core
// One direction of a Gaussian blur of the thickness (Green, GDC 2010). Summed chords are lumpy: a line of
// sight through particles' centres crosses twice the water of one through the gaps between them. Blurred
// over a few particle radii, the thickness reads as the water's depth; its radius is projected as the
// depth smoothing's is, from the raw depth (no blur where there is no surface: only spray reads it there).

in vec2 v_uv;

uniform sampler2D u_thickness;   // [m], the target's resolution
uniform sampler2D u_depth;       // raw, [m] in front of the eye; 0: no fluid; the view's (finer) resolution
uniform ivec2 u_direction;       // (1, 0) or (0, 1)
uniform float u_radius;          // particle radius [m]
uniform float u_filter_radius;   // in particle radii
uniform float u_pixels_per_m;    // at 1 m from the eye, in the thickness's pixels

out float out_thickness;

const int kMaxRadiusPx = 32;

void main() {
  ivec2 pixel = ivec2(gl_FragCoord.xy);
  ivec2 last = textureSize(u_thickness, 0) - 1;
  out_thickness = texelFetch(u_thickness, pixel, 0).r;
  // The view's pixel at this one's centre.
  vec2 to_depth = vec2(textureSize(u_depth, 0)) / vec2(textureSize(u_thickness, 0));
  float depth = texelFetch(u_depth, ivec2((vec2(pixel) + 0.5) * to_depth), 0).r;
  if (depth <= 0.0) return;
  float radius_px = min(u_filter_radius * u_radius * u_pixels_per_m / depth, float(kMaxRadiusPx));
  if (radius_px < 1.0) return;
  int reach = int(ceil(radius_px));
  float spatial = 1.0 / (2.0 * (0.5 * radius_px) * (0.5 * radius_px));
  float sum = 0.0, weights = 0.0;
  for (int k = -reach; k <= reach; ++k) {
    float weight = exp(-float(k * k) * spatial);
    sum += weight * texelFetch(u_thickness, clamp(pixel + k * u_direction, ivec2(0), last), 0).r;
    weights += weight;
  }
  out_thickness = sum / weights;
}
