// How the WCSPH force pass runs on the GPU. Both give the same sums in the same order (wcsph_physics.h); the
// split one exists for the divergence lesson (docs/lessons/4-divergence.md).
#pragma once

namespace surge {

enum class ForcePass {
  single,  // one pass: each thread runs its particle's fluid loop, then its wall loop (branchy)
  split,   // fluid loop for all particles, then the wall loop over a compacted list of wall-side particles
};

}  // namespace surge
