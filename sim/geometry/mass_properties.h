// Mass properties of a solid of uniform density, for floating rigid bodies: what a rigid-body integrator
// needs to turn forces and torques from the fluid into motion.
#pragma once

#include "sim/core/vec.h"
#include "sim/geometry/mat3.h"

namespace surge {

struct MassProperties {
  double volume = 0.0;     // [m^3]
  double mass = 0.0;       // [kg]
  Vec3d center_of_mass{};  // world frame [m]
  Mat3d inertia{};         // about the centre of mass, world axes [kg m^2]
};

// The inertia tensor of a body whose tensor in its own axes is `body`, in world axes: R I R^T.
inline Mat3d rotate_inertia(const Mat3d& rotation, const Mat3d& body) {
  return rotation * body * transpose(rotation);
}

}  // namespace surge
