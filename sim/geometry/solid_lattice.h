// Solids in SPH become boundary particles the way the tank walls do (sim/sph/sph_setup.cpp,
// place_wall_particles): sites of the fluid's cubic lattice, `layers` deep behind the surface, so the
// fluid meets a wall that looks like more fluid. And fluid sites too close to a solid are left out, as
// the wall lattice leaves half a spacing between the walls and the first fluid layer.
#pragma once

#include <vector>

#include "sim/core/vec.h"
#include "sim/geometry/solid.h"

namespace surge {

// The sites origin + spacing (i, j, k) inside the solid within layers * spacing of its surface:
// -layers * spacing <= signed_distance <= 0 (a site on the surface counts). A solid thinner than the shell
// is filled: its whole interior is within reach of the surface. Sites are rounded to float first and
// tested as rounded, so a site returned is inside by the very test a caller would make on it. Ordered by
// z, then y, then x.
//
// To put a solid's particles on the fluid's lattice, pass the fluid's lattice origin: sph_setup places
// fluid at domain_min + (i + 1/2) spacing, i.e. lattice_origin = domain_min + spacing / 2 on each axis.
// A solid thinner than a spacing may catch no site at all; the caller should say so.
std::vector<Vec3f> sample_solid_lattice(const Solid& solid, double spacing, int layers, Vec3d lattice_origin);

// Whether a fluid particle at `site` must be removed: inside the solid, or outside but nearer its surface
// than `clearance` [m]. Half a spacing matches the walls (the wall lattice's first layer sits half a
// spacing behind the wall, the first fluid layer half a spacing in front). A site exactly `clearance`
// away is kept: the comparison allows 1e-5 of the clearance for rounding, so that a lattice that puts
// fluid exactly half a spacing from a face keeps that layer.
bool fluid_site_blocked(const Solid& solid, Vec3f site, double clearance);

}  // namespace surge
