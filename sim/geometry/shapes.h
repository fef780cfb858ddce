// The shapes a [[solid]] block can name, each in its own frame, before a Transform places it.
#pragma once

#include <variant>

#include "sim/core/vec.h"
#include "sim/geometry/triangle_mesh.h"

namespace surge {

// Axis-aligned in its own frame, between two corners [m].
struct BoxShape {
  Vec3d min{}, max{};
  static BoxShape from_size(Vec3d size) { return {-0.5 * size, 0.5 * size}; }  // centred on the origin
};

// Centred on the origin [m].
struct SphereShape {
  double radius = 0.0;
};

// Axis along local z, centred on the origin (z in [-height/2, height/2]), closed at both ends [m].
struct CylinderShape {
  double radius = 0.0;
  double height = 0.0;
};

using Shape = std::variant<BoxShape, SphereShape, CylinderShape, TriangleMesh>;

}  // namespace surge
