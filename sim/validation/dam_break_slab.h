// The dam-break validation case as a scene: the water column (first fluid block, H = 2a, on the floor against
// the back wall x-) read from a slab scene such as scenes/validation/dam_break_slab.toml, and the scene set
// to a resolution (particles across a) and a slab depth (particles along y, walls front and back).
#pragma once

#include <string>

#include "sim/scene/scene.h"

namespace surge {

struct DamBreakColumn {
  double width_m = 0;            // a
  double height_m = 0;           // H = 2a
  double gravity = 0;            // |g| [m/s^2]
  double front_time_scale = 0;   // sqrt(2g/a) [1/s]: T = t * this (Martin & Moyce's front time)
  double height_time_scale = 0;  // sqrt(g/a) [1/s]: tau = t * this (their height time)
};

// The column of a slab scene. Throws SceneError naming the block's line when it is not a box on the floor
// against x- with H = 2a, or when gravity is not along -z.
DamBreakColumn dam_break_column(const Scene& scene);

// The slab depth in particles when none is given: 0.4 a, at least 4 particles. The walls front and back are
// made of particles and so are not perfectly smooth; in a slab thinner than about 0.4 a they hold the falling
// column up (measured in docs/validation.md, "Slab depth").
int default_slab_depth(int resolution);

// Sets the solver, spacing = a / resolution, and the slab depth (domain and column along y) to
// depth_particles spacings; turns off the scene's frame output. Returns the column.
DamBreakColumn prepare_dam_break_slab(Scene& scene, const std::string& solver, int resolution,
                                      int depth_particles);

}  // namespace surge
