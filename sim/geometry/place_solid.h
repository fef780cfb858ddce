// From a shape and a Transform to a placed solid: the one call the scene loader makes per [[solid]].
#pragma once

#include <memory>
#include <string>

#include "sim/geometry/shapes.h"
#include "sim/geometry/solid.h"
#include "sim/geometry/transform.h"

namespace surge {

// Throws GeometryError for a shape the transform cannot place exactly (mesh problems as MeshError, with
// `source` as the mesh's name).
std::unique_ptr<Solid> place_solid(const Shape& shape, const Transform& transform,
                                   const std::string& source = "mesh");

}  // namespace surge
