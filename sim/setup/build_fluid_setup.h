// From a loaded scene to the particles of an SPH run (WCSPH, DFSPH, PBF).
#pragma once

#include "sim/sph/sph_setup.h"

namespace surge {

struct Scene;
// Places fluid and wall particles for a scene. particles_override > 0 replaces the scene's resolution
// by a target fluid particle count. Throws SceneError for a scene that yields no particles, and, before
// placing any, for one whose fluid, walls or grid exceed the limits (sim/core/particle_limits.h) or the
// host's memory (sim/setup/host_memory.h); `run_bytes_per_particle` is the host memory per fluid particle
// the backend allocates after the setup (kCpuRunBytesPerFluidParticle for the CPU backend).
SphSetup build_setup(const Scene& scene, long particles_override = 0, double run_bytes_per_particle = 0);

// The lattice sites build_setup examines to place the fluid at `spacing`: those of the fluid blocks'
// bounding boxes, with two sites of slack either side, however large the domain (tests).
long fluid_sites_examined(const Scene& scene, double spacing);

// Host bytes per fluid particle of a CPU run beyond its setup: the solver's state, its sorted copies and
// the cell index. A lower bound: WCSPH measured 180 B per particle in all (dam_break, 0.5 to 2 million
// particles, peak resident memory), of which the setup is 44.
inline constexpr double kCpuRunBytesPerFluidParticle = 128;
// The hybrid modes keep positions and the cell index on the host.
inline constexpr double kHybridRunBytesPerFluidParticle = 48;

}  // namespace surge
