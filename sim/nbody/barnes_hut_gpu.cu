#include <thrust/iterator/transform_iterator.h>

#include <cstddef>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include "sim/core/cuda_check.h"
#include "sim/core/cuda_launch.cuh"
#include "sim/nbody/barnes_hut_gpu.h"
#include "sim/nbody/morton.h"
#include "sim/nbody/radix_tree.h"

namespace surge {

namespace {

// A body as a (degenerate) box, and boxes merged: the reduction of step 1.
struct BodyAsBox {
  __host__ __device__ NodeSummary<float> operator()(const Body<float>& body) const {
    return leaf_summary(body);
  }
};
struct MergeBoxes {
  __host__ __device__ NodeSummary<float> operator()(const NodeSummary<float>& a,
                                                    const NodeSummary<float>& b) const {
    NodeSummary<float> s = a;
    s.box_min = {min_of(a.box_min.x, b.box_min.x), min_of(a.box_min.y, b.box_min.y),
                 min_of(a.box_min.z, b.box_min.z)};
    s.box_max = {max_of(a.box_max.x, b.box_max.x), max_of(a.box_max.y, b.box_max.y),
                 max_of(a.box_max.z, b.box_max.z)};
    return s;
  }
};
NodeSummary<float> empty_box() {
  constexpr float kHuge = 3.0e38f;
  return {Body<float>{Vec3f{}, 0.0f}, Quadrupole<float>{}, Vec3f{kHuge, kHuge, kHuge},
          Vec3f{-kHuge, -kHuge, -kHuge}};
}

__global__ void morton_codes_kernel(const Body<float>* __restrict__ bodies, std::uint32_t n,
                                    const NodeSummary<float>* __restrict__ bounds,
                                    std::uint64_t* __restrict__ codes /* out */,
                                    std::uint32_t* __restrict__ indices /* out */) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const MortonFrame<float> frame = morton_frame(bounds->box_min, bounds->box_max);
  codes[k] = morton_code(bodies[k].x, frame);
  indices[k] = k;
}

__global__ void gather_bodies_kernel(const std::uint32_t* __restrict__ order, std::uint32_t n,
                                     const Body<float>* __restrict__ bodies,
                                     const Vec4f* __restrict__ velocities,
                                     const std::uint32_t* __restrict__ ids,
                                     Body<float>* __restrict__ sorted_bodies /* out */,
                                     Vec4f* __restrict__ sorted_velocities /* out */,
                                     std::uint32_t* __restrict__ sorted_ids /* out */) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const std::uint32_t from = order[k];
  sorted_bodies[k] = bodies[from];
  sorted_velocities[k] = velocities[from];
  sorted_ids[k] = ids[from];
}

__global__ void radix_tree_kernel(const std::uint64_t* __restrict__ codes, std::uint32_t n,
                                  RadixTreeView tree) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 >= n) return;  // n - 1 internal nodes
  build_radix_tree_node(codes, n, i, tree);
}

// A summary another thread wrote during this kernel: read through L2 (ld.global.cg), never from this SM's
// L1, which may hold a copy of the line from before the write.
__device__ NodeSummary<float> load_from_l2(const NodeSummary<float>* p) {
  static_assert(sizeof(NodeSummary<float>) == 64 && offsetof(NodeSummary<float>, quadrupole) == 16 &&
                offsetof(NodeSummary<float>, box_min) == 40 && offsetof(NodeSummary<float>, box_max) == 52);
  const float4* q = reinterpret_cast<const float4*>(p);
  const float4 a = __ldcg(q), b = __ldcg(q + 1), c = __ldcg(q + 2), d = __ldcg(q + 3);
  // a: centre of mass, mass | b, c.xy: quadrupole | c.zw, d.x: box_min | d.yzw: box_max
  return {Body<float>{Vec3f{a.x, a.y, a.z}, a.w}, Quadrupole<float>{b.x, b.y, b.z, b.w, c.x, c.y},
          Vec3f{c.z, c.w, d.x}, Vec3f{d.y, d.z, d.w}};
}

// Each leaf climbs towards the root. At each node the first of its two children to arrive stops; the
// second finds both summaries written and merges them, so every node is merged exactly once, after its
// children (Karras 2012, sec. 4).
__global__ void summarize_nodes_kernel(
    const Body<float>* __restrict__ bodies, std::uint32_t n, const std::int32_t* __restrict__ left,
    const std::int32_t* __restrict__ right, const std::int32_t* __restrict__ internal_parent,
    const std::int32_t* __restrict__ leaf_parent, const std::int32_t* __restrict__ other_end,
    std::int32_t* visits /* in, out */, NodeSummary<float>* summary /* out */,
    NodeMoments<float>* __restrict__ moments /* out */, float theta) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const auto summary_of = [&](std::int32_t child) {
    return child < 0 ? leaf_summary(bodies[~child]) : load_from_l2(summary + child);
  };
  std::int32_t node = leaf_parent[k];
  while (node >= 0) {
    // Publish this thread's last summary before the counter says it exists...
    __threadfence();
    if (atomicAdd(visits + node, 1) == 0) return;
    // ...and see the sibling's, published the same way, before reading it.
    __threadfence();
    const NodeSummary<float> s = merge_summaries(summary_of(left[node]), summary_of(right[node]));
    summary[node] = s;
    moments[node] = node_moments(s, theta, other_end[node]);
    node = internal_parent[node];
  }
}

template <bool kWithPotential>
__global__ void __launch_bounds__(kBlock)
    barnes_hut_kernel(BarnesHutTreeView<float> tree, float gravitational_constant, float eps2,
                      Vec4f* __restrict__ out /* out */, unsigned long long* interactions /* in, out */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned count = 0;
  if (i < tree.count) {
    const GravityAtBody<float> g = barnes_hut_gravity<kWithPotential>(tree, i, eps2);
    out[i] = make_vec4(g.acceleration * gravitational_constant, g.potential * gravitational_constant);
    count = g.interactions;
  }
  // One atomic per warp (every lane reaches here: no early return above).
  count = __reduce_add_sync(0xffffffffu, count);
  if ((threadIdx.x & 31u) == 0 && count > 0) atomicAdd(interactions, static_cast<unsigned long long>(count));
}

std::size_t sort_scratch_bytes(std::uint32_t capacity) {
  std::size_t bytes = 0;
  SURGE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, bytes, static_cast<const std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
      static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), capacity, 0,
      kMortonBits));
  return bytes;
}

using BoxIterator = thrust::transform_iterator<BodyAsBox, const Body<float>*>;

std::size_t reduce_scratch_bytes(std::uint32_t capacity) {
  std::size_t bytes = 0;
  SURGE_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, BoxIterator(nullptr, BodyAsBox{}),
                                             static_cast<NodeSummary<float>*>(nullptr), capacity,
                                             MergeBoxes{}, empty_box()));
  return bytes;
}

}  // namespace

GpuBarnesHut::GpuBarnesHut(std::uint32_t capacity) : capacity_(capacity) {
  const std::size_t n = std::max<std::uint32_t>(capacity, 2);
  codes_.resize(n);
  sorted_codes_.resize(n);
  indices_.resize(n);
  sorted_indices_.resize(n);
  body_scratch_.resize(n);
  velocity_scratch_.resize(n);
  id_scratch_.resize(n);
  left_.resize(n - 1);
  right_.resize(n - 1);
  internal_parent_.resize(n - 1);
  leaf_parent_.resize(n);
  other_end_.resize(n - 1);
  visits_.resize(n - 1);
  summary_.resize(n - 1);
  nodes_.resize(n - 1);
  bounds_.resize(1);
  cub_scratch_.resize(std::max(sort_scratch_bytes(capacity_), reduce_scratch_bytes(capacity_)));
}

std::size_t GpuBarnesHut::device_bytes_per_body() {
  // codes (2 x 8), indices (2 x 4), scratch body, velocity, id (16 + 16 + 4), tree links and ranges (5 x 4),
  // visits (4), summaries (64), moments (48), CUB sort scratch (about one more key and value: 12).
  return 2 * 8 + 2 * 4 + 16 + 16 + 4 + 5 * 4 + 4 + sizeof(NodeSummary<float>) + sizeof(NodeMoments<float>) +
         12;
}

void GpuBarnesHut::build(DeviceBuffer<Body<float>>& bodies, DeviceBuffer<Vec4f>& velocities,
                         DeviceBuffer<std::uint32_t>& ids, std::uint32_t n, float theta,
                         cudaStream_t stream) {
  if (n > capacity_) throw std::logic_error("GpuBarnesHut::build: more bodies than its capacity");
  if (n < 2) return;
  std::size_t scratch = cub_scratch_.size();
  // 1. Bounds.
  SURGE_CUDA_CHECK(cub::DeviceReduce::Reduce(cub_scratch_.data(), scratch,
                                             BoxIterator(bodies.data(), BodyAsBox{}), bounds_.data(), n,
                                             MergeBoxes{}, empty_box(), stream));
  // 2. Codes.
  morton_codes_kernel<<<blocks_for(n), kBlock, 0, stream>>>(bodies.data(), n, bounds_.data(), codes_.data(),
                                                            indices_.data());
  SURGE_CUDA_CHECK_LAUNCH("morton_codes_kernel");
  // 3. Sort: only the 63 code bits.
  scratch = cub_scratch_.size();
  SURGE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_scratch_.data(), scratch, codes_.data(),
                                                   sorted_codes_.data(), indices_.data(),
                                                   sorted_indices_.data(), n, 0, kMortonBits, stream));
  // 4. Bodies into Morton order, so the tree's leaves and the threads that walk it see neighbours side by
  // side.
  gather_bodies_kernel<<<blocks_for(n), kBlock, 0, stream>>>(
      sorted_indices_.data(), n, bodies.data(), velocities.data(), ids.data(), body_scratch_.data(),
      velocity_scratch_.data(), id_scratch_.data());
  SURGE_CUDA_CHECK_LAUNCH("gather_bodies_kernel");
  bodies.swap(body_scratch_);
  velocities.swap(velocity_scratch_);
  ids.swap(id_scratch_);
  // 5. Topology.
  const RadixTreeView tree{left_.data(), right_.data(), internal_parent_.data(), leaf_parent_.data(),
                           other_end_.data()};
  radix_tree_kernel<<<blocks_for(n - 1), kBlock, 0, stream>>>(sorted_codes_.data(), n, tree);
  SURGE_CUDA_CHECK_LAUNCH("radix_tree_kernel");
  // 6. Summaries.
  SURGE_CUDA_CHECK(cudaMemsetAsync(visits_.data(), 0, sizeof(std::int32_t) * (n - 1), stream));
  summarize_nodes_kernel<<<blocks_for(n), kBlock, 0, stream>>>(
      bodies.data(), n, left_.data(), right_.data(), internal_parent_.data(), leaf_parent_.data(),
      other_end_.data(), visits_.data(), summary_.data(), nodes_.data(), theta);
  SURGE_CUDA_CHECK_LAUNCH("summarize_nodes_kernel");
}

void GpuBarnesHut::gravity(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant,
                           float softening, std::uint32_t leaf_size, bool with_potential, Vec4f* d_out,
                           unsigned long long* d_interactions, cudaStream_t stream) {
  if (n == 0) return;
  const BarnesHutTreeView<float> tree{
      d_bodies, nodes_.data(), left_.data(), right_.data(), n, std::max<std::uint32_t>(leaf_size, 1)};
  const float eps2 = softening * softening;
  if (with_potential) {
    barnes_hut_kernel<true>
        <<<blocks_for(n), kBlock, 0, stream>>>(tree, gravitational_constant, eps2, d_out, d_interactions);
  } else {
    barnes_hut_kernel<false>
        <<<blocks_for(n), kBlock, 0, stream>>>(tree, gravitational_constant, eps2, d_out, d_interactions);
  }
  SURGE_CUDA_CHECK_LAUNCH("barnes_hut_kernel");
}

}  // namespace surge
