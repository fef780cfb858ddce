// The per-particle device bytes of the incompressible solvers beyond FluidState's, for the capacity check
// (gpu_capacity.h) of every executor that runs them on a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numbers>

#include "sim/core/vec.h"
#include "sim/sph/dfsph_physics.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// DfsphSolver: factor, wall terms, excess, q and its two sums, acceleration. PbfSolver: previous and next
// positions, next velocities, lambda and its sum, constraint, vorticity.
inline constexpr std::size_t kDfsphExtraBytes =
    sizeof(DfsphFactor) + sizeof(DfsphWallTerms) + 4 * sizeof(float) + sizeof(Vec4f);
inline constexpr std::size_t kPbfExtraBytes = 3 * sizeof(Vec4f) + 3 * sizeof(float) + sizeof(Vec3f);

// The GPU's per-step neighbour lists (CudaExecutor::build_neighbor_lists) per fluid particle: a list start
// for its fluid and its wall neighbours, and 4 bytes a neighbour, counted as the lattice points within the
// support, a tenth more for the walls, and the quarter the lists grow beyond what a step needs.
inline std::size_t neighbor_list_bytes_per_particle(const SphParameters& params) {
  const double reach = double(params.support) / double(params.spacing);
  const double neighbors = 4.0 / 3.0 * std::numbers::pi * reach * reach * reach * 1.1;
  return 2 * sizeof(std::uint32_t) + std::size_t(neighbors * 1.25 + 1.0) * sizeof(std::uint32_t);
}

}  // namespace surge
