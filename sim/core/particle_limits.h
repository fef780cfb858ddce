// How many particles a run may ask for: the scene keys (resolution.particles, dem.block count) and the
// command line's --particles share this bound, and setup refuses a scene whose lattice would exceed it
// before placing anything (sim/setup/). Particle ids are 32-bit (4,294,967,280 usable); the bound leaves
// the rest for an emitter's particles.
#pragma once

namespace surge {

inline constexpr long kMaxParticles = 2'000'000'000;

}  // namespace surge
