// Barnes-Hut on the GPU, rebuilt every step without leaving the device:
//   1. bounds of all bodies (CUB reduction)       -> 2. 63-bit Morton code per body
//   3. CUB radix sort of (code, body index)       -> 4. gather bodies, velocities, ids into Morton order
//   5. radix tree, one thread per internal node (Karras 2012)
//   6. node summaries bottom-up, one thread per leaf climbing with atomic counters (Karras 2012, sec. 4)
//   7. one thread per body walks the tree (barnes_hut_physics.h), summing near nodes of at most leaf_size
//      bodies body by body
// The tree uses the single-source functions of morton.h, radix_tree.h and barnes_hut_physics.h, which the
// CPU reference (barnes_hut_cpu.h) runs too.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sim/core/device_buffer.h"
#include "sim/core/vec.h"
#include "sim/nbody/barnes_hut_physics.h"

namespace surge {

class GpuBarnesHut {
 public:
  // Allocates everything for up to `capacity` bodies (the CUB scratch included), so steps allocate nothing.
  explicit GpuBarnesHut(std::uint32_t capacity);

  // Steps 1-6. Reorders bodies, velocities and ids in place (by swapping with internal buffers); the
  // pointers of those buffers change.
  void build(DeviceBuffer<Body<float>>& bodies, DeviceBuffer<Vec4f>& velocities,
             DeviceBuffer<std::uint32_t>& ids, std::uint32_t n, float theta, cudaStream_t stream);

  // Step 7 for the bodies of the last build(): out[i].xyz = acceleration (with G); out[i].w = potential
  // when asked for, else 0. Adds the pulls summed to *d_interactions.
  void gravity(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant, float softening,
               std::uint32_t leaf_size, bool with_potential, Vec4f* d_out, unsigned long long* d_interactions,
               cudaStream_t stream);

  static std::size_t device_bytes_per_body();

 private:
  std::uint32_t capacity_;
  DeviceBuffer<std::uint64_t> codes_, sorted_codes_;
  DeviceBuffer<std::uint32_t> indices_, sorted_indices_;
  DeviceBuffer<Body<float>> body_scratch_;
  DeviceBuffer<Vec4f> velocity_scratch_;
  DeviceBuffer<std::uint32_t> id_scratch_;
  DeviceBuffer<std::int32_t> left_, right_, internal_parent_, leaf_parent_, other_end_, visits_;
  DeviceBuffer<NodeSummary<float>> summary_;
  DeviceBuffer<NodeMoments<float>> nodes_;
  DeviceBuffer<NodeSummary<float>> bounds_;  // [1]: box of all bodies (only the box is used)
  DeviceBuffer<unsigned char> cub_scratch_;
};

}  // namespace surge
