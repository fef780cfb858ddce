// Brings a simulation's solids (Simulation::solid_surfaces) into the renderer's SolidMeshes: their
// triangles once, and their poses as model matrices, read again each frame only where a solid moves. On the
// GPU that is the one per-frame readback drawing solids adds: sizeof(BodyPose) bytes a body, in the ledger as
// kSolidPosesTransfer; the particles keep their own path (particle_feed.h), through interop untouched.
#pragma once

#include <vector>

#include "render/gl_math.h"
#include "render/solid_meshes.h"
#include "sim/backend/simulation.h"

namespace surge::app {

// The model matrix that places a body's surface at `pose`: x = c + R(q) r.
render::Mat4 model_matrix(const BodyPose& pose);

class SolidFeed {
 public:
  // Uploads the surfaces (recorded in the ledger, once) and places every solid where it stands now.
  SolidFeed(Simulation& simulation, render::SolidMeshes& meshes);
  // Places the solids where the last step left them; reads nothing when none moves.
  void update();

 private:
  Simulation& simulation_;
  render::SolidMeshes& meshes_;
  std::vector<BodyPose> poses_;
};

}  // namespace surge::app
