// What a viewer needs to draw the scene's solids (docs/rendering.md "Solids"): each solid's surface as
// triangles in its body's frame, published once (Simulation::solid_surfaces), and the bodies' poses, read
// each frame where a solid moves (Simulation::download_solid_poses). A corner r of the surface stands at
// c + R(q) r, as the body's particles do (body_motion.h); a renderer turns the pose into a model matrix.
#pragma once

#include <string>
#include <vector>

#include "sim/core/vec.h"
#include "sim/sph/body_motion.h"

namespace surge {

// A body's reference point c [m] and orientation q (identity at rest).
struct BodyPose {
  Vec3f center{};
  Quatf orientation{};
};

struct SolidSurface {
  std::string name;  // the [[solid]]'s
  // Three corners per triangle, counter-clockwise seen from outside, relative to the body's reference point
  // at rest: x - c0 [m].
  std::vector<Vec3f> triangles;
  BodyPose rest;  // c0, identity: where the solid stands until (unless) it moves
};

// The ledger's name for the per-frame readback of the poses on the GPU: the only bytes drawing the solids
// moves each frame (N bodies x sizeof(BodyPose)).
inline constexpr const char* kSolidPosesTransfer = "solid poses to OpenGL (each frame)";

}  // namespace surge
