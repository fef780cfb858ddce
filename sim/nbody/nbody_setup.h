// Everything a backend needs to start an n-body run: the parameters and the initial bodies, in double so
// the CPU reference keeps full precision (the GPU rounds them to float when it uploads them).
#pragma once

#include <cstddef>
#include <vector>

#include "sim/core/vec.h"
#include "sim/nbody/gravity_physics.h"
#include "sim/nbody/nbody_parameters.h"

namespace surge {

struct NbodySetup {
  NbodyParameters params;
  std::vector<Body<double>> bodies;  // position and mass; the index is the body's creation id
  std::vector<Vec3d> velocities;
  // Where the run starts: 0 for a new one, a frame's time and step for one continued in another mode (the
  // viewer's live switch). The energy drift is then measured from the continued run's start.
  double time_s = 0;
  long step = 0;
  std::size_t size() const { return bodies.size(); }
};

// Bytes of device memory per body, for "how many fit" messages.
std::size_t device_bytes_per_body(NbodyMethod method);

}  // namespace surge
