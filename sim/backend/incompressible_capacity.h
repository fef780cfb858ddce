// The per-particle device bytes of the incompressible solvers beyond FluidState's, for the capacity check
// (gpu_capacity.h) of every executor that runs them on a GPU.
#pragma once

#include <cstddef>

#include "sim/core/vec.h"
#include "sim/sph/dfsph_physics.h"

namespace surge {

// DfsphSolver: factor, wall terms, excess, q and its two sums, acceleration. PbfSolver: previous and next
// positions, next velocities, lambda and its sum, constraint, vorticity.
inline constexpr std::size_t kDfsphExtraBytes =
    sizeof(DfsphFactor) + sizeof(DfsphWallTerms) + 4 * sizeof(float) + sizeof(Vec4f);
inline constexpr std::size_t kPbfExtraBytes = 3 * sizeof(Vec4f) + 3 * sizeof(float) + sizeof(Vec3f);

}  // namespace surge
