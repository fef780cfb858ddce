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

// Each thread sums the pull on kBodiesPerThread bodies (first, first + kGravityTile, ...): every body read
// from the tile serves that many sums, so the shared-memory load and the loop's own instructions are spread
// over that many pairs, and the independent sums give the pipelines work to overlap (register tiling). The
// price is kBodiesPerThread times fewer threads: too few to fill the GPU at small n (launch_all_pairs_tiled).
template <int kBodiesPerThread, bool kMayCoincide>
__global__ void __launch_bounds__(kGravityTile)
    all_pairs_tiled_kernel(const Body<float>* __restrict__ bodies, std::uint32_t n,
                           float gravitational_constant, float eps2, Vec4f* __restrict__ out /* out */) {
  __shared__ Body<float> tile[kGravityTile];
  const std::uint32_t first = blockIdx.x * (kGravityTile * kBodiesPerThread) + threadIdx.x;
  // Bodies past the end sit at the origin: their sums are computed and dropped, and their threads still load
  // tiles for the others.
  Vec3f x[kBodiesPerThread], a[kBodiesPerThread];
#pragma unroll
  for (int r = 0; r < kBodiesPerThread; ++r) {
    const std::uint32_t i = first + r * kGravityTile;
    x[r] = i < n ? bodies[i].x : Vec3f{};
    a[r] = Vec3f{};
  }
  for (std::uint32_t start = 0; start < n; start += kGravityTile) {
    const std::uint32_t j = start + threadIdx.x;
    // A zero mass pads the last tile: it pulls nothing, so the inner loop needs no bound check.
    tile[threadIdx.x] = j < n ? bodies[j] : Body<float>{Vec3f{}, 0.0f};
    __syncthreads();
    // Unrolled so the shared-memory loads (broadcasts: one address per warp) overlap the arithmetic.
#pragma unroll(16 / kBodiesPerThread)
    for (int k = 0; k < kGravityTile; ++k) {
      const Body<float> body = tile[k];
#pragma unroll
      for (int r = 0; r < kBodiesPerThread; ++r) add_pair_acceleration<kMayCoincide>(x[r], body, eps2, a[r]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < kBodiesPerThread; ++r) {
    const std::uint32_t i = first + r * kGravityTile;
    if (i < n) out[i] = make_vec4(a[r] * gravitational_constant, 0.0f);
  }
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

template <int kBodiesPerThread>
void launch_tiled(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant, float eps2,
                  Vec4f* d_out, cudaStream_t stream) {
  const unsigned blocks = blocks_for(n, kGravityTile * kBodiesPerThread);
  if (eps2 > 0.0f) {
    all_pairs_tiled_kernel<kBodiesPerThread, false>
        <<<blocks, kGravityTile, 0, stream>>>(d_bodies, n, gravitational_constant, eps2, d_out);
  } else {
    all_pairs_tiled_kernel<kBodiesPerThread, true>
        <<<blocks, kGravityTile, 0, stream>>>(d_bodies, n, gravitational_constant, eps2, d_out);
  }
  SURGE_CUDA_CHECK_LAUNCH("all_pairs_tiled_kernel");
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
  if (gravity_bodies_per_thread(n) == 2) {
    launch_tiled<2>(d_bodies, n, gravitational_constant, eps2, d_out, stream);
  } else {
    launch_tiled<1>(d_bodies, n, gravitational_constant, eps2, d_out, stream);
  }
}

void launch_all_pairs_potential(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant,
                                float softening, Vec4f* d_out, cudaStream_t stream) {
  if (n == 0) return;
  all_pairs_potential_kernel<<<blocks_for(n, kGravityTile), kGravityTile, 0, stream>>>(
      d_bodies, n, gravitational_constant, softening * softening, d_out);
  SURGE_CUDA_CHECK_LAUNCH("all_pairs_potential_kernel");
}

}  // namespace surge
