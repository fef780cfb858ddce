// All-pairs gravity on the GPU, one thread per body, in two forms that compute the same sum:
//   naive: every thread reads every body from global memory;
//   tiled: a block loads a tile of bodies into shared memory once, and each of its threads reads them from
//          there (Nyland, Harris & Prins 2007, GPU Gems 3, ch. 31): global traffic drops by the tile size;
//          and, given bodies enough, each thread sums the pull on several, so each body it reads from the
//          tile serves several sums (register tiling).
// The comparison is the lesson of docs/lessons/shared-memory-tiling.md.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sim/core/vec.h"
#include "sim/nbody/gravity_physics.h"

namespace surge {

inline constexpr int kGravityTile = 256;  // bodies per shared-memory tile = threads per block

// Bodies each thread of the tiled kernel sums: two while that still leaves kGravityEnoughThreads threads,
// else one. Measured on the H200 (docs/perf/2026-12-03-nbody-register-tiling.md): two per thread is 0.7-1.1 %
// faster than one from 131,072 bodies up; four is no faster than two at 1M, 2-4 % slower at 262,144 and
// 524,288 bodies and 32 % slower at 131,072, and at 65,536 bodies anything but one is slower (too few warps
// left to hide the pipelines' latency).
inline constexpr std::uint32_t kGravityEnoughThreads = 65536;
constexpr int gravity_bodies_per_thread(std::uint32_t n) {
  return n >= 2 * kGravityEnoughThreads ? 2 : 1;
}

// out[i].xyz = G * sum_j pull of j on i; out[i].w = 0. softening 0 selects the guarded pair form.
void launch_all_pairs_naive(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant,
                            float softening, Vec4f* d_out, cudaStream_t stream);
void launch_all_pairs_tiled(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant,
                            float softening, Vec4f* d_out, cudaStream_t stream);
// out[i].w = G * sum_{j != i} potential of j at i (xyz untouched): for energies, not for stepping.
void launch_all_pairs_potential(const Body<float>* d_bodies, std::uint32_t n, float gravitational_constant,
                                float softening, Vec4f* d_out, cudaStream_t stream);

}  // namespace surge
