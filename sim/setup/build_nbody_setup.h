// From a loaded scene's [[nbody.system]] tables to the bodies of a gravity run.
#pragma once

#include "sim/nbody/nbody_setup.h"

namespace surge {

struct Scene;
// Places the bodies of every [[nbody.system]]. particles_override > 0 replaces the total body count: the
// Plummer and disc systems share it in the proportions the scene gives them (two-body systems keep their
// two). Throws SceneError when the override cannot apply (only two-body systems).
NbodySetup build_nbody_setup(const Scene& scene, long particles_override = 0);

}  // namespace surge
