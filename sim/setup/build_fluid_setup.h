// From a loaded scene to the particles of an SPH run (WCSPH, DFSPH, PBF).
#pragma once

#include "sim/sph/sph_setup.h"

namespace surge {

struct Scene;
// Places fluid and wall particles for a scene. particles_override > 0 replaces the scene's resolution
// by a target fluid particle count. Throws SceneError for a scene that yields no particles.
SphSetup build_setup(const Scene& scene, long particles_override = 0);

}  // namespace surge
