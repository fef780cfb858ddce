#version 450 core
// After a splat (fluid_splat.comp): its integers into the float image the later passes read, as the point
// sprites would have left it. Thickness: fixed point to metres. Depth: the bits of a float, and the cleared
// all-ones (no particle there) to 0, "no fluid".

layout(local_size_x = 8, local_size_y = 8) in;

layout(r32ui, binding = 0) readonly uniform uimage2D u_splatted;
layout(r32f, binding = 1) writeonly uniform image2D u_resolved;

uniform int u_pass;              // 1 thickness, 2 depth (fluid_splat.comp)
uniform float u_metres_per_unit; // pass 1

void main() {
  ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(pixel, imageSize(u_resolved)))) return;
  uint value = imageLoad(u_splatted, pixel).r;
  float resolved;
  if (u_pass == 1) {
    resolved = float(value) * u_metres_per_unit;
  } else {
    resolved = value == 0xffffffffu ? 0.0 : uintBitsToFloat(value);
  }
  imageStore(u_resolved, pixel, vec4(resolved));
}
