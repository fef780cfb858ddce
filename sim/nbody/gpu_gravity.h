// The n-body solver's gravity passes on a device executor, in float: the all-pairs sum by the shared-memory
// tiled kernel or its naive twin (all_pairs_gpu.h), or Barnes-Hut over the radix tree rebuilt on the device
// every step (barnes_hut_gpu.h), whose plain twin is the CPU tree (cpu_gravity.h). The same code serves the
// solver and the probe the GPU tests call (gravity_gpu_probe.h). Included only by .cu files.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/device_buffer.h"
#include "sim/nbody/barnes_hut_gpu.h"
#include "sim/nbody/nbody_diagnostics.h"
#include "sim/nbody/nbody_parameters.h"

namespace surge {

class GpuGravity {
 public:
  // Velocities and accelerations as 16-byte records (one load each); the field's w carries the potential.
  using Vector = Vec4f;

  // Allocates everything for `capacity` bodies (the tree only for barnes_hut), so steps allocate nothing.
  GpuGravity(NbodyMethod method, std::uint32_t capacity);

  // The index stage, on the executor's stream: Barnes-Hut's tree, with bodies, velocities and ids moved
  // into Morton order (the buffers' pointers change); nothing for all pairs.
  template <typename Exec>
  void prepare(Exec& exec, DeviceBuffer<Body<float>>& bodies, DeviceBuffer<Vec4f>& velocities,
               DeviceBuffer<std::uint32_t>& ids, std::uint32_t n, const NbodyParameters& params) {
    prepare(bodies, velocities, ids, n, params, exec.stream());
  }
  // The forces stage: acceleration() of every body. Barnes-Hut counts its pulls into *d_interactions
  // (device memory); all pairs leave it alone (their count is N^2).
  template <typename Exec>
  void accelerate(Exec& exec, const DeviceBuffer<Body<float>>& bodies, std::uint32_t n,
                  const NbodyParameters& params, unsigned long long* d_interactions) {
    launch_accelerate(bodies.data(), n, params, d_interactions, exec.stream());
  }
  const Vec4f* acceleration() const { return acceleration_.data(); }

  // Potentials by one more gravity pass (into a field of its own, so stepping's accelerations stay), then
  // one reduction of the per-body terms in double; the sum crosses the bus as "step figures".
  template <typename Exec>
  NbodyEnergy energy(Exec& exec, const DeviceBuffer<Body<float>>& bodies,
                     const DeviceBuffer<Vec4f>& velocities, std::uint32_t n, const NbodyParameters& params) {
    if (n == 0) return {};
    launch_energy_sum(bodies.data(), velocities.data(), n, params, exec.stream());
    std::vector<NbodyEnergy> sum;
    exec.download(sum, energy_, 1, "step figures");
    return sum[0];
  }

  // The passes themselves, for callers without an executor (the probe).
  void prepare(DeviceBuffer<Body<float>>& bodies, DeviceBuffer<Vec4f>& velocities,
               DeviceBuffer<std::uint32_t>& ids, std::uint32_t n, const NbodyParameters& params,
               cudaStream_t stream);
  // out.xyz = accelerations; out.w = potentials when asked for. Barnes-Hut adds its pulls to
  // *d_interactions.
  void evaluate(const Body<float>* d_bodies, std::uint32_t n, const NbodyParameters& params,
                bool with_potential, Vec4f* d_out, unsigned long long* d_interactions, cudaStream_t stream);

 private:
  void launch_accelerate(const Body<float>* d_bodies, std::uint32_t n, const NbodyParameters& params,
                         unsigned long long* d_interactions, cudaStream_t stream);
  void launch_energy_sum(const Body<float>* d_bodies, const Vec4f* d_velocities, std::uint32_t n,
                         const NbodyParameters& params, cudaStream_t stream);

  std::optional<GpuBarnesHut> tree_;
  DeviceBuffer<Vec4f> acceleration_, potential_field_;
  DeviceBuffer<NbodyEnergy> energy_{1};
  DeviceBuffer<unsigned long long> scratch_interactions_{1};
  DeviceBuffer<unsigned char> reduce_scratch_;
};

}  // namespace surge
