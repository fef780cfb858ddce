// Mass properties of a closed, outward-facing triangle mesh of uniform density, by the divergence
// theorem: the volume integrals of 1, x and x x^T over the solid become a sum over tetrahedra that join
// a reference point to each triangle, signed by the triangle's orientation (Mirtich 1996 derives the same
// integrals through face projections; the tetrahedra are simpler and exact for a polyhedron).
#pragma once

#include "sim/geometry/mass_properties.h"
#include "sim/geometry/triangle_mesh.h"

namespace surge {

MassProperties polyhedral_mass_properties(const TriangleMesh& mesh, double density);

}  // namespace surge
