#include "sim/core/cuda_check.h"
#include "sim/core/cuda_launch.cuh"
#include "sim/nbody/all_pairs_gpu.h"

namespace surge {

namespace {

template <bool kMayCoincide>
__global__ void __launch_bounds__(kGravityTile)
    all_pairs_naive_kernel(const Body<float>* __restrict__ bodies, std::uint32_t n,
                           float gravitational_constant, float eps2, Vec4f* __restrict__ out /* out */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Vec3f x_i = bodies[i].x;
  Vec3f a{};
  // Every iteration is a 16-byte load from global memory; all threads of a warp load the same body, so the
  // caches serve most of them, but each load still costs a trip through the load/store pipeline and L1.
  for (std::uint32_t j = 0; j < n; ++j) add_pair_acceleration<kMayCoincide>(x_i, bodies[j], eps2, a);
  out[i] = make_vec4(a * gravitational_constant, 0.0f);
}

template <bool kMayCoincide>
__global__ void __launch_bounds__(kGravityTile)
    all_pairs_tiled_kernel(const Body<float>* __restrict__ bodies, std::uint32_t n,
                           float gravitational_constant, float eps2, Vec4f* __restrict__ out /* out */) {
  __shared__ Body<float> tile[kGravityTile];
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  // Threads past the end still load tiles for the others; they pull nothing and write nothing.
  const Vec3f x_i = i < n ? bodies[i].x : Vec3f{};
  Vec3f a{};
  for (std::uint32_t start = 0; start < n; start += kGravityTile) {
    const std::uint32_t j = start + threadIdx.x;
    // A zero mass pads the last tile: it pulls nothing, so the inner loop needs no bound check.
    tile[threadIdx.x] = j < n ? bodies[j] : Body<float>{Vec3f{}, 0.0f};
    __syncthreads();
    // Unrolled so the shared-memory loads (broadcasts: one address per warp) overlap the arithmetic.
#pragma unroll 16
    for (int k = 0; k < kGravityTile; ++k) add_pair_acceleration<kMayCoincide>(x_i, tile[k], eps2, a);
    __syncthreads();
  }
  if (i < n) out[i] = make_vec4(a * gravitational_constant, 0.0f);
}

__global__ void __launch_bounds__(kGravityTile)
    all_pairs_potential_kernel(const Body<float>* __restrict__ bodies, std::uint32_t n,
                               float gravitational_constant, float eps2,
                               Vec4f* __restrict__ out /* in, out: w */) {
  __shared__ Body<float> tile[kGravityTile];
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const Vec3f x_i = i < n ? bodies[i].x : Vec3f{};
  float phi = 0.0f;
  for (std::uint32_t start = 0; start < n; start += kGravityTile) {
    const std::uint32_t j = start + threadIdx.x;
    tile[threadIdx.x] = j < n ? bodies[j] : Body<float>{Vec3f{}, 0.0f};
    __syncthreads();
    for (int k = 0; k < kGravityTile; ++k)
      if (start + k != i) phi += pair_potential(x_i, tile[k], eps2);
    __syncthreads();
  }
  if (i < n) out[i].w = phi * gravitational_constant;
}

}  // namespace

void launch_all_pairs_naive(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant,
                            float softening, Vec4f* d_out, cudaStream_t stream) {
  if (n == 0) return;
  const float eps2 = softening * softening;
  if (softening > 0.0f) {
    all_pairs_naive_kernel<false><<<blocks_for(n, kGravityTile), kGravityTile, 0, stream>>>(
        d_bodies, n, gravitational_constant, eps2, d_out);
  } else {
    all_pairs_naive_kernel<true><<<blocks_for(n, kGravityTile), kGravityTile, 0, stream>>>(
        d_bodies, n, gravitational_constant, eps2, d_out);
  }
  SURGE_CUDA_CHECK_LAUNCH("all_pairs_naive_kernel");
}

void launch_all_pairs_tiled(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant,
                            float softening, Vec4f* d_out, cudaStream_t stream) {
  if (n == 0) return;
  const float eps2 = softening * softening;
  if (softening > 0.0f) {
    all_pairs_tiled_kernel<false><<<blocks_for(n, kGravityTile), kGravityTile, 0, stream>>>(
        d_bodies, n, gravitational_constant, eps2, d_out);
  } else {
    all_pairs_tiled_kernel<true><<<blocks_for(n, kGravityTile), kGravityTile, 0, stream>>>(
        d_bodies, n, gravitational_constant, eps2, d_out);
  }
  SURGE_CUDA_CHECK_LAUNCH("all_pairs_tiled_kernel");
}

void launch_all_pairs_potential(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant,
                                float softening, Vec4f* d_out, cudaStream_t stream) {
  if (n == 0) return;
  all_pairs_potential_kernel<<<blocks_for(n, kGravityTile), kGravityTile, 0, stream>>>(
      d_bodies, n, gravitational_constant, softening * softening, d_out);
  SURGE_CUDA_CHECK_LAUNCH("all_pairs_potential_kernel");
}

}  // namespace surge
