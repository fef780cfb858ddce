// From a loaded scene (solver = "dem") to the grains of a granular run.
#pragma once

#include "sim/dem/dem_setup.h"

namespace surge {

struct Scene;
// Places the grains of a scene and chooses the time step. particles_override > 0 asks for about that many
// moving grains (docs/scenes.md, "--particles with solver dem"). Throws SceneError for a scene that yields
// no grains, a lattice that leaves the domain or a time step the integrator cannot take.
DemSetup build_dem_setup(const Scene& scene, long particles_override = 0);

}  // namespace surge
