// A bed of grains (radii 3 - 5 mm, jittered, moving sideways) settling in a closed box with Mindlin friction
// 0.5: the scene the Mindlin tests share on the CPU (tests/sim/dem_mindlin_test.cpp) and the GPU
// (tests/gpu/dem_equivalence_test.cpp). `extra` adds [dem] keys.
#pragma once

#include <string>

namespace surge {

inline std::string mindlin_bed_scene(const std::string& extra = "") {
  return R"(solver = "dem"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.06, 0.06, 0.2]
[dem]
stiffness = 500.0
restitution = 0.3
friction = 0.5
friction_model = "mindlin"
gravity = [0.0, 0.0, -9.81]
collision_time_fraction = 0.05
)" + extra +
         R"(
[[dem.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.06, 0.06, 0.05]
grain_radius = 0.003
grain_radius_max = 0.005
density = 2500.0
jitter = 0.5
velocity = [0.1, 0.05, 0.0]
)";
}

}  // namespace surge
