#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cub/device/device_reduce.cuh>
#include <numeric>
#include <stdexcept>
#include <string>

#include "sim/core/cuda_check.h"
#include "sim/core/gpu_info.h"
#include "sim/core/transfer_ledger.h"
#include "sim/nbody/all_pairs_gpu.h"
#include "sim/nbody/gpu_gravity.h"
#include "sim/nbody/gravity_gpu_probe.h"
#include "sim/nbody/nbody_setup.h"

namespace surge {

namespace {

// Per-body energy terms in double, for the CUB reduction of the energy figures.
struct BodyEnergyAt {
  const Body<float>* bodies;
  const Vec4f* velocities;
  const Vec4f* field;  // w: potential
  __host__ __device__ NbodyEnergy operator()(std::uint32_t i) const {
    const Body<float> b = bodies[i];
    const Vec4f v = velocities[i];
    return body_energy(Vec3d{b.x.x, b.x.y, b.x.z}, Vec3d{v.x, v.y, v.z}, double(b.m), double(field[i].w));
  }
};
struct AddEnergy {
  __host__ __device__ NbodyEnergy operator()(const NbodyEnergy& a, const NbodyEnergy& b) const {
    return a + b;
  }
};
using EnergyIterator = thrust::transform_iterator<BodyEnergyAt, thrust::counting_iterator<std::uint32_t>>;

EnergyIterator energy_terms(const Body<float>* bodies, const Vec4f* velocities, const Vec4f* field) {
  return EnergyIterator(thrust::counting_iterator<std::uint32_t>(0), BodyEnergyAt{bodies, velocities, field});
}

}  // namespace

GpuGravity::GpuGravity(NbodyMethod method, std::uint32_t capacity)
    : acceleration_(capacity), potential_field_(capacity) {
  if (method == NbodyMethod::barnes_hut) tree_.emplace(capacity);
  std::size_t bytes = 0;
  SURGE_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, energy_terms(nullptr, nullptr, nullptr),
                                             energy_.data(), capacity, AddEnergy{}, NbodyEnergy{}));
  reduce_scratch_.resize(bytes);
}

void GpuGravity::prepare(DeviceBuffer<Body<float>>& bodies, DeviceBuffer<Vec4f>& velocities,
                         DeviceBuffer<std::uint32_t>& ids, std::uint32_t n, const NbodyParameters& params,
                         cudaStream_t stream) {
  if (params.method == NbodyMethod::barnes_hut)
    tree_->build(bodies, velocities, ids, n, float(params.theta), stream);
}

void GpuGravity::evaluate(const Body<float>* d_bodies, std::uint32_t n, const NbodyParameters& params,
                          bool with_potential, Vec4f* d_out, unsigned long long* d_interactions,
                          cudaStream_t stream) {
  const float g = float(params.gravitational_constant), eps = float(params.softening);
  switch (params.method) {
    case NbodyMethod::barnes_hut:
      tree_->gravity(d_bodies, n, g, eps, std::uint32_t(params.leaf_size), with_potential, d_out,
                     d_interactions, stream);
      return;
    case NbodyMethod::all_pairs_naive:
      launch_all_pairs_naive(d_bodies, n, g, eps, d_out, stream);
      break;
    case NbodyMethod::all_pairs:
      launch_all_pairs_tiled(d_bodies, n, g, eps, d_out, stream);
      break;
  }
  if (with_potential) launch_all_pairs_potential(d_bodies, n, g, eps, d_out, stream);
}

void GpuGravity::launch_accelerate(const Body<float>* d_bodies, std::uint32_t n,
                                   const NbodyParameters& params, unsigned long long* d_interactions,
                                   cudaStream_t stream) {
  if (params.method == NbodyMethod::barnes_hut)
    SURGE_CUDA_CHECK(cudaMemsetAsync(d_interactions, 0, sizeof(unsigned long long), stream));
  evaluate(d_bodies, n, params, false, acceleration_.data(), d_interactions, stream);
}

void GpuGravity::launch_energy_sum(const Body<float>* d_bodies, const Vec4f* d_velocities, std::uint32_t n,
                                   const NbodyParameters& params, cudaStream_t stream) {
  // The tree's pulls of this pass go to a counter of their own: the step's count stays the figure.
  SURGE_CUDA_CHECK(cudaMemsetAsync(scratch_interactions_.data(), 0, sizeof(unsigned long long), stream));
  evaluate(d_bodies, n, params, true, potential_field_.data(), scratch_interactions_.data(), stream);
  std::size_t bytes = reduce_scratch_.size();
  SURGE_CUDA_CHECK(cub::DeviceReduce::Reduce(reduce_scratch_.data(), bytes,
                                             energy_terms(d_bodies, d_velocities, potential_field_.data()),
                                             energy_.data(), n, AddEnergy{}, NbodyEnergy{}, stream));
}

std::size_t device_bytes_per_body(NbodyMethod method) {
  // Body (16), velocity, acceleration and the figures' field (3 x 16), id (4), energy reduction scratch (~0).
  const std::size_t common = sizeof(Body<float>) + 3 * sizeof(Vec4f) + sizeof(std::uint32_t);
  return common + (method == NbodyMethod::barnes_hut ? GpuBarnesHut::device_bytes_per_body() : 0);
}

GpuGravityProbe gpu_gravity(const std::vector<Body<float>>& bodies, const NbodyParameters& params,
                            bool with_potential) {
  std::string why_not;
  if (!query_gpu(&why_not)) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::uint32_t n = std::uint32_t(bodies.size());
  TransferLedger ledger;
  DeviceBuffer<Body<float>> d_bodies;
  DeviceBuffer<Vec4f> d_velocities(n), d_field(n);
  DeviceBuffer<std::uint32_t> d_ids;
  DeviceBuffer<unsigned long long> d_interactions(1);
  std::vector<std::uint32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0u);
  copy_to_device(d_bodies, bodies, ledger, "probe bodies");
  copy_to_device(d_ids, ids, ledger, "probe bodies");
  SURGE_CUDA_CHECK(cudaMemset(d_interactions.data(), 0, sizeof(unsigned long long)));
  GpuGravity gravity(params.method, n);
  gravity.prepare(d_bodies, d_velocities, d_ids, n, params, nullptr);
  gravity.evaluate(d_bodies.data(), n, params, with_potential, d_field.data(), d_interactions.data(),
                   nullptr);
  SURGE_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Vec4f> field;
  std::vector<unsigned long long> interactions;
  copy_to_host(field, d_field, ledger, "probe result");
  copy_to_host(ids, d_ids, ledger, "probe result");
  copy_to_host(interactions, d_interactions, ledger, "probe result");
  // Barnes-Hut returns bodies in Morton order; ids lead each back to its place.
  GpuGravityProbe probe;
  probe.field.resize(n);
  for (std::uint32_t k = 0; k < n; ++k) probe.field[ids[k]] = field[k];
  probe.interactions =
      params.method == NbodyMethod::barnes_hut ? std::uint64_t(interactions[0]) : std::uint64_t(n) * n;
  return probe;
}

}  // namespace surge
