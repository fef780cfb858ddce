#include "sim/geometry/place_solid.h"

#include "sim/geometry/box_solid.h"
#include "sim/geometry/cylinder_solid.h"
#include "sim/geometry/mesh_solid.h"
#include "sim/geometry/sphere_solid.h"

namespace surge {

std::unique_ptr<Solid> place_solid(const Shape& shape, const Transform& transform,
                                   const std::string& source) {
  struct Place {
    const Transform& transform;
    const std::string& source;
    std::unique_ptr<Solid> operator()(const BoxShape& s) const {
      return std::make_unique<BoxSolid>(s, transform);
    }
    std::unique_ptr<Solid> operator()(const SphereShape& s) const {
      return std::make_unique<SphereSolid>(s, transform);
    }
    std::unique_ptr<Solid> operator()(const CylinderShape& s) const {
      return std::make_unique<CylinderSolid>(s, transform);
    }
    std::unique_ptr<Solid> operator()(const TriangleMesh& s) const {
      return std::make_unique<MeshSolid>(s, transform, source);
    }
  };
  return std::visit(Place{transform, source}, shape);
}

}  // namespace surge
